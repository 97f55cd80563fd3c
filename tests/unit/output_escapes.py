#!/usr/bin/env python3
"""No escape sequence reaches the terminal raw from what the user typed or named: every option
below given a value carrying ESC, CSI (7-bit and C1) and OSC, and a kernel directory and file
whose names carry them; stdout and stderr must hold no ESC, BEL or C1 CSI byte.

    output_escapes.py BENCHTOP
"""
import os, shutil, subprocess, sys, tempfile

EVIL = "\x1b[31mRED\x1b]0;title\x07\xc2\x9b2J"  # ESC CSI, OSC with BEL, C1 CSI (UTF-8)
RAW = (b"\x1b", b"\x07", b"\xc2\x9b")


def run(exe, args, env):
    p = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       timeout=60)
    return p.returncode, p.stdout + p.stderr


def main(argv):
    exe = os.path.abspath(argv[1])
    tmp = tempfile.mkdtemp()
    try:
        env = dict(os.environ, XDG_CONFIG_HOME=tmp + "/config", XDG_DATA_HOME=tmp + "/data",
                   XDG_CACHE_HOME=tmp + "/cache", BENCHTOP_WORKER="/bin/false")
        for k in ("BENCHTOP_KERNEL_PATH", "BENCHTOP_EXTRA_KERNELS", "BENCHTOP_KERNEL_DIR"):
            env.pop(k, None)
        sess = os.path.join(tmp, "s.json")
        shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sessions",
                                 "minimal.json"), sess)
        base = ["-v", "naive", "-s", "2x8x512x64"]
        cases = [
            ("--reps", ["run"] + base + ["--reps", EVIL]),
            ("-v", ["run", "-v", EVIL, "-s", "2x8x512x64"]),
            ("-s", ["run", "-v", "naive", "-s", EVIL]),
            ("--knob", ["run"] + base + ["--knob", EVIL]),
            ("--knob value", ["run"] + base + ["--knob", "block_m=" + EVIL]),
            ("--metrics", ["run"] + base + ["--metrics", EVIL]),
            ("--format", ["show", sess, "--format", EVIL]),
            ("--devices", ["run"] + base + ["--devices", EVIL]),
            ("--strategy", ["tune", "-v", "mma", "-s", "2x8x512x64", "--strategy", EVIL]),
            ("new NAME", ["new", EVIL, "--from", "naive", "-o", tmp + "/new"]),
            ("diff --match", ["diff", sess, sess, "--match", EVIL]),
            ("an unknown option", ["run", "--" + EVIL]),
            ("an unknown command", [EVIL]),
            ("list variants SUBSTRING", ["list", "variants", EVIL]),
        ]
        # A kernel directory and a file in it, both named with escapes (a broken declaration, so
        # that the loader's note quotes the path), and a good kernel beside it.
        kdir = os.path.join(tmp, "k" + EVIL)
        os.makedirs(kdir)
        with open(os.path.join(kdir, "bad" + EVIL + ".cu"), "w") as f:
            f.write("// not a declaration\n")
        rc, _ = run(exe, ["new", "mine", "--from", "naive", "-o", kdir], env)
        cases += [
            ("list variants (kernel path)", ["list", "variants", "--kernels", kdir]),
            ("run (kernel path)", ["run", "-v", "mine", "-s", "2x8x512x64", "--kernels", kdir]),
        ]
        bad = 0
        for what, args in cases:
            rc, out = run(exe, args, env)
            leaked = [r for r in RAW if r in out]
            # a refusal each, but for the listing of the kernel path (which must show mine)
            listing = what.startswith("list variants (")
            ok = not leaked and (b"mine" in out if listing else rc != 0)
            bad += not ok
            print("%s %-30s exit %d%s" % ("ok  " if ok else "FAIL", what, rc,
                                          ": raw %r in %r" % (leaked, out[:160]) if leaked else ""))
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
