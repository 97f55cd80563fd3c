#!/usr/bin/env python3
"""Hostile paths and files, through the real binary (no GPU: tests/unit/hostile_worker.py stands
in for the worker): -o semantics (append, --force, refusals), self-overwrite by replay, devices,
FIFOs, links, directories, read-only and missing parents, a planted temporary file and log,
concurrent writers, kept modes, HOME unset, files that would hang a reader, kernel directories,
and the text sanitiser over every output format.

    hostile_paths.py BENCHTOP [CASE...]      (no CASE: all of them)
"""
import json, os, shutil, stat, subprocess, sys, time

import hostile_suite

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "hostile_worker.py")
TIME_SCALE = float(os.environ.get("HOSTILE_TIME_SCALE", "1"))
PLAN = ["-v", "naive,smem", "-s", "1x1x64x64", "--metrics", "none"]


class Case(hostile_suite.Case):
    def __init__(self, name, bt, tmp):
        super().__init__(name, bt, tmp)
        self.env = dict(os.environ, BENCHTOP_WORKER=WORKER, HOSTILE_MODE="good",
                        XDG_DATA_HOME=tmp + "/data", XDG_CACHE_HOME=tmp + "/cache",
                        XDG_CONFIG_HOME=tmp + "/config", BENCHTOP_EXAMPLES="/nonexistent")

    def bt_run(self, args, env=None, timeout=30, **kw):
        """benchtop ARGS: (exit code, stdout, stderr); a hang is a failure of its own."""
        e = dict(self.env)
        e.update(env or {})
        try:
            p = subprocess.run([self.bt] + args, env=e, capture_output=True,
                               timeout=timeout * TIME_SCALE, **kw)
        except subprocess.TimeoutExpired:
            self.check(False, "benchtop %s hung (killed after %.0f s)" % (" ".join(args), timeout * TIME_SCALE))
            return -1, "", ""
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")

    def path(self, name):
        return os.path.join(self.tmp, name)


def records(path):
    try:
        with open(path) as f:
            return json.load(f)["records"]
    except (OSError, ValueError, KeyError):
        return None


def digest(path):
    try:
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode):
            with open(path, "rb") as f:
                return (st.st_mode, f.read())
        return (st.st_mode, os.readlink(path) if stat.S_ISLNK(st.st_mode) else None)
    except OSError:
        return None


def make_session(c, name, n_runs=1):
    """A real session from the scripted worker: 2 records per run."""
    path = c.path(name)
    for i in range(n_runs):
        rc, _, err = c.bt_run(["run"] + PLAN + ["-o", path] + (["--append"] if i else []))
        c.check(rc == 0, "making %s: exit %d: %s" % (name, rc, err[-300:]))
    return path


def refused(c, label, args, victim, want_rc=1, text=None, env=None):
    """benchtop ARGS must fail (want_rc) with one clear line and leave victim as it was."""
    before = digest(victim)
    t0 = time.monotonic()
    rc, out, err = c.bt_run(args, env=env)
    c.check(rc == want_rc, "%s: exit %d, want %d (%s)" % (label, rc, want_rc, err.strip()[-300:]))
    c.check(digest(victim) == before, "%s: %s was changed" % (label, victim))
    if text:
        c.check(text in err, "%s: stderr lacks %r: %s" % (label, text, err.strip()[-300:]))
    c.check("variant" not in out, "%s: ran the plan before refusing" % label)
    c.notes.append("%s %.1f s" % (label, time.monotonic() - t0))
    return err


# ---- -o semantics -----------------------------------------------------------------------------

def case_append_same_gpu(c):
    """-o an existing session of the same GPU: refused in one line naming -o and --append (the
    file unchanged); with --append the new records go after the old ones, and stderr says how
    many were there before the first new one."""
    s = make_session(c, "s.json")
    err = refused(c, "no --append", ["run"] + PLAN + ["-o", s], s)
    c.check(err.strip().count("\n") == 0 and "-o" in err and "--append" in err,
            "the refusal is not one line naming -o and --append: %r" % err)
    for args in (["run"] + PLAN, ["replay", s]):
        out = s if args[0] == "run" else c.path("r.json")
        if args[0] == "replay":
            make_session(c, "r.json")
            refused(c, "replay without --append", args + ["-o", out], out)
        rc, _, err = c.bt_run(args + ["-o", out, "--append"])
        c.check(rc == 0 and "appending to %s: it already holds 2 records of" % out in err,
                "%s --append: exit %d: %s" % (args[0], rc, err[-300:]))
    n = len(records(s) or [])
    c.check(n == 4, "%d records after a run and an appended run, want 4" % n)
    s3 = make_session(c, "s3.json", n_runs=3)
    n = len(records(s3) or [])
    c.check(n == 6, "%d records after three runs into one file, want 6" % n)


def case_other_gpu_refused(c):
    """-o a session of another GPU is refused (nothing recorded); --force replaces it."""
    s = make_session(c, "s.json")
    d = json.load(open(s))
    d["device"]["name"] = "another GPU"
    json.dump(d, open(s, "w"))
    before = digest(s)
    rc, _, err = c.bt_run(["run"] + PLAN + ["-o", s])
    c.check(rc == 1 and "another GPU" in err, "exit %d: %s" % (rc, err[-300:]))
    c.check(digest(s) == before, "the other GPU's session was changed")
    # Knobs chosen once the device is known (--knob auto): nothing was submitted yet.
    rc, _, err = c.bt_run(["run"] + PLAN + ["--knob", "auto", "-o", s])
    c.check(rc == 1 and "another GPU" in err, "--knob auto: exit %d: %s" % (rc, err[-300:]))
    c.check(digest(s) == before, "the other GPU's session was changed by --knob auto")
    rc, _, err = c.bt_run(["run"] + PLAN + ["-o", s, "--force"])
    c.check(rc == 0 and len(records(s) or []) == 2, "--force: exit %d, %s records" % (rc, len(records(s) or [])))


def case_not_a_session(c):
    """-o a file that is not a session is refused; --force replaces it."""
    f = c.path("notes.txt")
    open(f, "w").write("my notes, not a session\n")
    refused(c, "text file", ["run"] + PLAN + ["-o", f], f, text="not a benchtop session")
    rc, _, err = c.bt_run(["run"] + PLAN + ["-o", f, "--force"])
    c.check(rc == 0 and len(records(f) or []) == 2, "--force: exit %d: %s" % (rc, err[-200:]))


def case_special_targets(c):
    """-o a link, /dev/null, a FIFO or a directory: refused at once, nothing replaced."""
    target = make_session(c, "real.json")
    link = c.path("link.json")
    os.symlink(target, link)
    refused(c, "symlink", ["run"] + PLAN + ["-o", link], target, text="symbolic link")
    c.check(os.path.islink(link), "the link was replaced")
    refused(c, "/dev/null", ["run"] + PLAN + ["-o", "/dev/null"], "/dev/null", text="not a regular file")
    c.check(stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null is no longer a device")
    fifo = c.path("fifo.json")
    os.mkfifo(fifo)
    refused(c, "FIFO", ["run"] + PLAN + ["-o", fifo], fifo, text="FIFO")
    d = c.path("dir.json")
    os.mkdir(d)
    refused(c, "directory", ["run"] + PLAN + ["-o", d], d, text="directory")


def case_unwritable(c):
    """A session that cannot be written is found before anything runs, and never exit 0:
    missing parent, read-only parent, -o "", XDG_DATA_HOME a file."""
    refused(c, "missing parent", ["run"] + PLAN + ["-o", c.path("no/such/dir/s.json")], c.path("no"))
    # /proc refuses new files even to root; a chmod 555 directory does for anyone else.
    refused(c, "read-only parent", ["run"] + PLAN + ["-o", "/proc/benchtop-test.json"], "/proc/benchtop-test.json")
    if os.geteuid() != 0:
        ro = c.path("ro")
        os.mkdir(ro, 0o555)
        refused(c, "chmod 555 parent", ["run"] + PLAN + ["-o", ro + "/s.json"], ro + "/s.json")
    refused(c, "-o ''", ["run"] + PLAN + ["-o", ""], c.path("x"), want_rc=2)
    f = c.path("xdg-file")
    open(f, "w").write("a file, not a directory\n")
    refused(c, "XDG_DATA_HOME a file", ["run"] + PLAN, f, env={"XDG_DATA_HOME": f})


def case_full_disk(c):
    """A disk that fills up (a file-size limit: writes fail with EFBIG, as ENOSPC would): the
    failed save is said, the exit is not 0, the session keeps what it held and no temporary
    file is left; a new -o file that cannot take one record is not left half-written."""
    import resource
    s = make_session(c, "full.json")
    before = digest(s)
    limit = os.path.getsize(s) + 1500  # the next save (two more records) does not fit

    def small():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    rc, out, err = c.bt_run(["run"] + PLAN + ["-o", s, "--append"], preexec_fn=small)
    c.check(rc not in (0, -1) and rc > 0, "append to a full disk: exit %d, want an error (%s)" % (rc, err.strip()[-300:]))
    c.check("could not be saved" in err or "cannot save" in err, "append: the failed save is not said: %s" % err.strip()[-300:])
    c.check(digest(s) == before, "append: the session was changed")
    left = [n for n in os.listdir(c.tmp) if n.startswith(".full.json")]
    c.check(not left, "append: temporary files left: %s" % left)
    limit = 200
    new = c.path("new.json")
    rc, out, err = c.bt_run(["run"] + PLAN + ["-o", new], preexec_fn=small)
    c.check(rc > 0, "new file on a full disk: exit %d (%s)" % (rc, err.strip()[-300:]))
    c.check(not os.path.exists(new) or records(new) is not None, "new file: left half-written")
    left = [n for n in os.listdir(c.tmp) if n.startswith(".new.json")]
    c.check(not left, "new file: temporary files left: %s" % left)
    # replay and tune save through the same routine: never exit 0 with records unsaved (the
    # new file is claimed, the records do not fit).
    limit = 1000
    for label, args in (("replay", ["replay", s, "-o", c.path("replayed.json")]),
                        ("tune", ["tune", "-v", "smem", "-s", "1x1x64x64", "--metrics", "none",
                                  "-o", c.path("tuned.json")])):
        rc, out, err = c.bt_run(args, preexec_fn=small, timeout=120)
        c.check(rc > 0, "%s on a full disk: exit %d (%s)" % (label, rc, err.strip()[-300:]))
        c.check("could not be saved" in err or "cannot save" in err,
                "%s: the failed save is not said: %s" % (label, err.strip()[-300:]))
        c.check(not any(l.startswith("session: ") for l in err.splitlines()),
                "%s: names the unsaved file as its session: %s" % (label, err.strip()[-300:]))


def case_replay_self(c):
    """replay never writes its input: not by its name, ./name, a link, or a hard link."""
    s = make_session(c, "in.json")
    os.symlink(s, c.path("ln.json"))
    os.link(s, c.path("hard.json"))
    cwd = os.getcwd()
    os.chdir(c.tmp)
    try:
        for label, out in (("same name", "in.json"), ("./name", "./in.json"),
                           ("symlink", "ln.json"), ("hard link", "hard.json"),
                           ("absolute", s)):
            refused(c, label, ["replay", "in.json", "-o", out], s)
    finally:
        os.chdir(cwd)


def case_replay_plan(c):
    """replay checks the plan in the file like a command line (reps, watchdog, unknown knobs,
    values a knob does not have: refused before anything runs), and keeps each variant's own
    knobs: mma and fa3 at their defaults, also from a benchtop.session/1 file whose one flat
    knob list holds fa3's block_m=128,block_n=128."""
    s = c.path("two.json")
    rc, _, err = c.bt_run(["run", "-v", "mma,fa3", "-s", "2x8x512x64", "--metrics", "none", "-o", s])
    c.check(rc == 0, "making the session: exit %d: %s" % (rc, err[-300:]))
    orig = {r["variant"]: r["knobs"] for r in records(s) or []}
    c.check(len(orig) == 2, "the session holds %s" % orig)

    def variant(d, name):
        return [v for v in d["plan"]["variants"] if v["name"] == name][0]
    bad = (("reps", lambda d: d["plan"]["options"].update(reps=2147483647), "reps"),
           ("watchdog", lambda d: d["plan"]["options"].update(watchdog_s=1e-9), "watchdog"),
           ("unknown knob", lambda d: variant(d, "mma").update(knobs=["bogus=1"]), "bogus"),
           ("knob value", lambda d: variant(d, "mma").update(knobs=["block_m=96"]), "96"))
    for label, change, text in bad:
        d = json.load(open(s))
        change(d)
        f = c.path("bad.json")
        json.dump(d, open(f, "w"))
        out = c.path("bad-out.json")
        refused(c, label, ["replay", f, "-o", out], out, text=text)
    d = json.load(open(s))
    d["schema"] = "benchtop.session/1"
    d["plan"]["variants"] = ["mma", "fa3"]
    d["plan"]["knobs"] = ["block_m=128", "block_n=128"]
    for name, f in (("/2", s), ("/1", c.path("v1.json"))):
        if name == "/1":
            json.dump(d, open(f, "w"))
        out = c.path("replayed-%s.json" % name[1])
        rc, _, err = c.bt_run(["replay", f, "-o", out])
        got = {r["variant"]: r["knobs"] for r in records(out) or []}
        c.check(rc == 0 and got == orig, "replay of %s: exit %d, knobs %s, want %s (%s)"
                % (name, rc, got, orig, err.strip()[-300:]))
        if name == "/1":
            c.check("converted from benchtop.session/1" in err, "no word about the /1 plan: %s" % err[-300:])


def case_concurrent(c):
    """Two runs with the same -o at once: the second is refused (one writer per file), and
    the file holds every record of the one that ran."""
    s = c.path("shared.json")
    env = dict(c.env, HOSTILE_MODE="slow")
    args = [c.bt, "run", "-v", "naive,smem,swizzle,wmma", "-s", "1x1x64x64,1x1x128x64",
            "--metrics", "none", "-o", s]
    a = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t0 = time.monotonic()
    while not os.path.exists(s) and time.monotonic() - t0 < 20 * TIME_SCALE:
        time.sleep(0.02)
    b = subprocess.run(args, env=env, capture_output=True, timeout=60 * TIME_SCALE)
    a_out, a_err = a.communicate(timeout=60 * TIME_SCALE)
    berr = b.stderr.decode()
    c.check(a.returncode == 0, "first run: exit %d: %s" % (a.returncode, a_err.decode()[-200:]))
    c.check(b.returncode != 0 and "another benchtop" in berr, "second run: exit %d: %s" % (b.returncode, berr[-300:]))
    n = len(records(s) or [])
    c.check(n == 8, "%d records in the shared file, want 8" % n)


def case_mode_kept(c):
    """A 0600 session stays 0600 when records are appended."""
    s = make_session(c, "private.json")
    os.chmod(s, 0o600)
    rc, _, err = c.bt_run(["run"] + PLAN + ["-o", s, "--append"])
    c.check(rc == 0, "append: exit %d: %s" % (rc, err[-300:]))
    mode = stat.S_IMODE(os.stat(s).st_mode)
    c.check(mode == 0o600, "mode %o after an append, want 600" % mode)


def case_planted_temp(c):
    """The temporary file is not PATH.tmp.PID: a link planted there redirects nothing."""
    victim = c.path("victim.txt")
    open(victim, "w").write("precious\n")
    s = c.path("s.json")
    go = c.path("go")
    p = subprocess.Popen(["sh", "-c", 'while [ ! -e "$1" ]; do sleep 0.01; done; shift; exec "$@"',
                          "sh", go, c.bt, "run"] + PLAN + ["-o", s],
                         env=c.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.symlink(victim, "%s.tmp.%d" % (s, p.pid))  # the old name, with the pid it will have
    open(go, "w").close()
    p.communicate(timeout=60 * TIME_SCALE)
    c.check(open(victim).read() == "precious\n", "the planted link's target was overwritten")
    c.check(len(records(s) or []) == 2, "the session itself was not written")


def case_planted_log(c):
    """worker.log is never written through a link."""
    victim = c.path("victim.txt")
    open(victim, "w").write("precious\n")
    logdir = c.path("cache/benchtop")
    os.makedirs(logdir)
    os.symlink(victim, logdir + "/worker.log")
    rc, _, err = c.bt_run(["run"] + PLAN + ["-o", c.path("s.json")], env={"HOSTILE_MODE": "chatty-stderr"})
    c.check(open(victim).read() == "precious\n", "the worker's log went through the link")
    c.check(rc == 0, "exit %d: %s" % (rc, err[-200:]))
    c.check("worker.log" in err, "no word about the refused log: %s" % err[-200:])


def case_home_unset(c):
    """HOME and XDG_DATA_HOME unset: the session goes under the home directory of the password
    database, never into world-writable /tmp (whose old fallback anyone could plant files in)."""
    env = {k: v for k, v in c.env.items() if k not in ("HOME", "XDG_DATA_HOME")}
    p = subprocess.run([c.bt, "run"] + PLAN, env=env, capture_output=True, timeout=60 * TIME_SCALE)
    err = p.stderr.decode()
    c.check(p.returncode == 0, "exit %d: %s" % (p.returncode, err[-200:]))
    path = err.split("session: ")[-1].split(" (")[0].strip() if "session: " in err else ""
    c.check(path and not path.startswith("/tmp/"), "the session went to %r" % path)
    import pwd
    home = pwd.getpwuid(os.getuid()).pw_dir
    c.check(path.startswith(home.rstrip("/") + "/"), "the session is not under %s: %r" % (home, path))
    if path and os.path.isfile(path):
        os.unlink(path)  # a file of ours in the real home: cleaned up


def case_show_fifo(c):
    """show, diff and replay of a FIFO: one line, at once, never a hang."""
    fifo = c.path("s.json")
    os.mkfifo(fifo)
    for args in (["show", fifo], ["diff", fifo, fifo], ["replay", fifo]):
        t0 = time.monotonic()
        rc, out, err = c.bt_run(args, timeout=10)
        c.check(rc == 1 and "FIFO" in err and len(err.strip().splitlines()) == 1,
                "%s: exit %d: %s" % (args[0], rc, err.strip()[-200:]))
        c.notes.append("%s %.2f s" % (args[0], time.monotonic() - t0))


def case_kernel_dir(c):
    """BENCHTOP_KERNEL_DIR missing, or holding a FIFO, a directory or an oversized file for a
    kernel: an error naming it, never a hang or a silent fall back to the built-in kernel."""
    args = ["check-kernels", "--variant", "naive", "--arch", "sm_80"]
    rc, out, _ = c.bt_run(["--version"])
    if "viewer build" in out:  # no JIT to read kernel sources: the refusal is all there is
        rc, out, err = c.bt_run(args, env={"BENCHTOP_KERNEL_DIR": c.path("missing")})
        c.check(rc == 3 and "viewer build" in err, "viewer build: exit %d: %s" % (rc, err.strip()[-200:]))
        return
    kd = c.path("kernels")
    os.mkdir(kd)
    rc, out, err = c.bt_run(args, env={"BENCHTOP_KERNEL_DIR": c.path("missing")}, timeout=120)
    c.check(rc != 0 and "BENCHTOP_KERNEL_DIR" in out + err, "missing dir: exit %d: %s" % (rc, (out + err).strip()[-200:]))
    os.mkfifo(kd + "/naive.cu")
    rc, out, err = c.bt_run(args, env={"BENCHTOP_KERNEL_DIR": kd}, timeout=30)
    c.check(rc != 0 and "FIFO" in out + err, "FIFO kernel: exit %d: %s" % (rc, (out + err).strip()[-200:]))
    os.unlink(kd + "/naive.cu")
    os.mkdir(kd + "/naive.cu")
    rc, out, err = c.bt_run(args, env={"BENCHTOP_KERNEL_DIR": kd}, timeout=30)
    c.check(rc != 0 and "directory" in out + err, "directory kernel: exit %d: %s" % (rc, (out + err).strip()[-200:]))
    os.rmdir(kd + "/naive.cu")
    with open(kd + "/naive.cu", "wb") as f:
        f.truncate(64 << 20)
    rc, out, err = c.bt_run(args, env={"BENCHTOP_KERNEL_DIR": kd}, timeout=30)
    c.check(rc != 0 and "naive.cu" in out + err, "oversized kernel: exit %d: %s" % (rc, (out + err).strip()[-200:]))
    os.unlink(kd + "/naive.cu")
    os.mkfifo(kd + "/evil.cu")
    rc, _, err = c.bt_run(["run", "-v", "evil", "-s", "1x1x64x64"], env={"BENCHTOP_EXTRA_KERNELS": kd}, timeout=30)
    c.check(rc == 2, "FIFO extra kernel: exit %d: %s" % (rc, (out + err).strip()[-200:]))


def case_cli_values(c):
    """--seed garbage or overflow is refused; repeated knob values run once each."""
    for seed in ("18446744073709551616", "-1", "12abc", " 5", "0x10"):
        rc, _, err = c.bt_run(["run"] + PLAN + ["--seed", seed, "-o", c.path("s.json")])
        c.check(rc == 2, "--seed %r: exit %d" % (seed, rc))
    s = c.path("k.json")
    rc, _, err = c.bt_run(["run", "-v", "smem", "-s", "1x1x64x64", "--metrics", "none", "-o", s,
                           "--knob", "pad=8,0,8,8,0,8,0,8,0,8,0,8"])
    recs = records(s) or []
    c.check(rc == 0 and len(recs) == 2, "a sweep of 12 repeated values: exit %d, %d records, want 2" % (rc, len(recs)))


# ---- the sanitiser over every output format ---------------------------------------------------

EVIL = "\x1b]0;pwned\x07\x1b[2J\rX\x9b31m\u202e\x7f"


def evil_session(c):
    s = make_session(c, "evil.json")
    d = json.load(open(s))
    d["host"] = "host" + EVIL
    d["device"]["name"] = "gpu" + EVIL
    d["version"] = "v" + EVIL
    for r in d["records"]:
        r["variant"] = "var" + EVIL
        r["knobs"] = "k=" + EVIL
        r["reason"] = "why" + EVIL
        r["status"] = "error"
    d["records"][0]["status"] = "pass"
    json.dump(d, open(s, "w"))
    return s, d


def raw_controls(text):
    return [ch for ch in set(text) if (ord(ch) < 0x20 and ch not in "\n\t") or 0x7f <= ord(ch) <= 0x9f
            or ch in "\u202e"]


def case_sanitised_outputs(c):
    """Escape sequences in a session's host, device, variant, knobs and reason never reach
    the terminal raw: show and diff in every format; JSON stays valid and keeps the text."""
    s, d = evil_session(c)
    for fmt in ("table", "csv", "md", "json"):
        for args in (["show", s, "--format", fmt], ["show", s, "--best", "--format", fmt],
                     ["diff", s, s, "--format", fmt]):
            rc, out, err = c.bt_run(args)
            bad = raw_controls(out + err)
            c.check(rc in (0, 1) and not bad, "%s: exit %d, raw %r" % (" ".join(args[:1] + args[2:]), rc, bad))
            if fmt == "json" and args[0] == "show" and "--best" not in args:
                try:
                    back = json.loads(out)
                    c.check(back["records"][0]["variant"] == d["records"][0]["variant"],
                            "JSON output changed the text: %r" % back["records"][0]["variant"])
                except ValueError as e:
                    c.check(False, "show --format json is not JSON: %s" % e)
    # Errors that quote a file: a schema with escapes in it.
    bad_schema = c.path("bad.json")
    json.dump({"schema": "benchtop.session/" + EVIL, "records": []}, open(bad_schema, "w"))
    rc, out, err = c.bt_run(["show", bad_schema])
    c.check(rc == 1 and not raw_controls(out + err), "schema error: exit %d, raw %r" % (rc, raw_controls(err)))
    # A file name with escapes.
    weird = c.path("name\x1b[31m\x07.json")
    shutil.copy(s, weird)
    rc, out, err = c.bt_run(["show", weird, "--format", "table"])
    c.check(not raw_controls(out + err), "file name: raw %r" % raw_controls(out + err))
    rc, out, err = c.bt_run(["show", c.path("missing\x1b]0;x\x07.json")])
    c.check(rc == 1 and not raw_controls(out + err), "missing file name: raw %r" % raw_controls(err))


CASES = hostile_suite.cases_in(globals())

if __name__ == "__main__":
    sys.exit(hostile_suite.main(__doc__, CASES, "bt-paths-", new_case=Case))
