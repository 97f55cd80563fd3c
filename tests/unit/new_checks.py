#!/usr/bin/env python3
"""benchtop new and the kernel path's names:
  - the file written honours the umask (0644 under 022, 0640 under 027), not mkstemp's 0600;
  - -o DIR whose parent is missing is refused in one line, creating nothing; -o DIR in an
    existing directory is made;
  - all, default, auto and none are refused as names by new, and a kernel file so named (bare,
    or declaring that name) is skipped by the loader with a one-line note each.

    new_checks.py BENCHTOP
"""
import os, shutil, stat, subprocess, sys, tempfile

KEYWORDS = ("all", "default", "auto", "none")


def main(argv):
    exe = os.path.abspath(argv[1])
    tmp = tempfile.mkdtemp()
    bad = 0

    def check(what, ok, detail=""):
        nonlocal bad
        bad += not ok
        print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + detail))

    def run(args, mask=0o022):
        old = os.umask(mask)
        try:
            p = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, timeout=60, cwd=tmp)
        finally:
            os.umask(old)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")

    try:
        env = dict(os.environ, XDG_CONFIG_HOME=tmp + "/config", XDG_DATA_HOME=tmp + "/data",
                   XDG_CACHE_HOME=tmp + "/cache")
        for k in ("BENCHTOP_KERNEL_PATH", "BENCHTOP_EXTRA_KERNELS", "BENCHTOP_KERNEL_DIR"):
            env.pop(k, None)
        for mask, want in ((0o022, 0o644), (0o027, 0o640)):
            d = os.path.join(tmp, "m%o" % mask)
            rc, out, err = run(["new", "mine", "--from", "naive", "-o", d], mask)
            path = os.path.join(d, "mine.cu")
            mode = stat.S_IMODE(os.stat(path).st_mode) if os.path.exists(path) else None
            check("new under umask %03o writes %o" % (mask, want), rc == 0 and mode == want,
                  "exit %d, mode %s %s" % (rc, oct(mode) if mode is not None else "-", err))

        deep = os.path.join(tmp, "no", "such", "dir")
        rc, out, err = run(["new", "mine", "--from", "naive", "-o", deep])
        check("new -o with a missing parent is refused, nothing made",
              rc != 0 and not os.path.exists(os.path.join(tmp, "no")) and
              len(err.strip().splitlines()) == 1 and "parent" in err, "exit %d %r" % (rc, err))

        for w in KEYWORDS:
            rc, out, err = run(["new", w, "--from", "naive", "-o", os.path.join(tmp, "kw")])
            check("new %s is refused" % w,
                  rc == 2 and not os.path.exists(os.path.join(tmp, "kw", w + ".cu")), "exit %d %r" % (rc, err))

        kdir = os.path.join(tmp, "kernels")
        os.makedirs(kdir)
        for w in KEYWORDS:
            with open(os.path.join(kdir, w + ".cu"), "w") as f:
                f.write("__global__ void attn_fwd() {}\n")
        # A declaration naming a keyword, in a file whose own name is fine.
        with open(os.path.join(tmp, "m22", "mine.cu")) as f:
            text = f.read()
        with open(os.path.join(kdir, "declared.cu"), "w") as f:
            f.write("\n".join(("name      auto" if l.startswith("name ") else l)
                              for l in text.split("\n")))
        rc, out, err = run(["list", "variants", "--names", "--kernels", kdir])
        names = out.split()
        check("the loader loads no variant named after a keyword",
              rc == 0 and not any(w in names for w in KEYWORDS) and "naive" in names, repr(names))
        notes = [l for l in err.splitlines() if l.strip()]
        for w in KEYWORDS:
            check("a one-line note for %s.cu" % w,
                  sum(1 for l in notes if "/%s.cu" % w in l) == 1, repr(notes))
        check("a note for the declaration named auto",
              any("declared.cu" in l and "auto" in l for l in notes), repr(notes))
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
