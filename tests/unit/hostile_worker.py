#!/usr/bin/env python3
"""The runner against a hostile worker, through `benchtop run` and BENCHTOP_WORKER (no GPU).

This file is both the test driver and the worker: benchtop starts it as `FILE worker`, and
HOSTILE_MODE says how to misbehave. Each case checks that the run ends on its own (never a
hang), that every record the worker did produce is saved and the session loads, that the
parent's memory stays bounded (VmHWM), and that the exit code says what happened.

    hostile_worker.py BENCHTOP [CASE...]      (no CASE: all of them)
"""
import json, os, random, select, signal, subprocess, sys, threading, time

import hostile_suite

# ---------------------------------------------------------------------------------------------
# The worker side.

DEVICE = {"name": "hostile test worker (no GPU)", "cc_major": 9, "cc_minor": 0, "sm_count": 132,
          "l2_bytes": 62914560, "mem_bytes": 150000000000, "driver_version": 13000,
          "runtime_version": 13000, "nvrtc_major": 13, "nvrtc_minor": 0, "cupti_version": 130001,
          "peak_tflops": 650.0}


def line(msg):
    return (json.dumps(msg) + "\n").encode()


def put(data):
    view = memoryview(data)
    while view:
        n = os.write(1, view)
        view = view[n:]


def record(req, nsamples=10, **over):
    samples = [10.0 + random.random() for _ in range(nsamples)]
    s = sorted(samples)
    rec = {"variant": req["variant"], "knobs": req["knobs"], "shape": req["shape"],
           "status": "pass", "reason": "", "options": req.get("opts", {}), "device": DEVICE,
           "timing": {"p50": s[len(s) // 2], "p90": s[-1], "p99": s[-1], "min": s[0],
                      "mean": sum(s) / len(s), "stddev": 0.3, "tflops": 1.0, "peak_frac": 0.01,
                      "nsamples": nsamples, "samples": samples, "source": "kernel"},
           "error": {"checked": True, "max_abs": 1e-4, "rel_l2": 1e-4, "tolerance": 2e-3,
                     "nan_count": 0, "inf_count": 0, "unwritten": 0},
           "metrics": []}
    rec.update(over)
    return rec


def answer(req, **over):
    return line({"type": "record", "id": req["id"], "record": record(req, **over)})


def progress(req, phase="timing", pad=0):
    msg = {"type": "progress", "id": req["id"], "phase": phase}
    if pad:
        msg["pad"] = "x" * pad  # unknown keys are ignored: a valid, long line
    return line(msg)


def worker(mode):
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # a worker that does not cancel politely
    victim = os.environ.get("HOSTILE_VICTIM", "smem")
    if mode == "exit-at-once":
        sys.exit(1)
    put(line({"type": "hello", "device": DEVICE}))
    if mode == "hello-exit":
        sys.stdin.buffer.readline()
        sys.exit(1)
    answered = 0
    for raw in sys.stdin.buffer:
        req = json.loads(raw)
        op = req.get("op")
        if op == "quit":
            break
        if op == "ping":
            if mode != "nan-noping":
                put(line({"type": "pong", "id": req["id"]}))
            continue
        if op != "run":
            continue
        answered += 1
        hit = req["variant"] == victim
        if mode == "burst":  # 999 progress lines and the record in one write
            put(progress(req) * 999 + answer(req))
        elif mode == "flood":  # ~100 MB of 4 KiB progress lines before the first record
            if answered == 1:
                chunk = progress(req, pad=4000) * 16
                for _ in range(100 * 1024 * 1024 // len(chunk)):
                    put(chunk)
            put(answer(req))
        elif mode == "flood-forever":  # the first request never ends
            chunk = progress(req, pad=4000) * 16
            if answered >= 2:
                while True:
                    put(chunk)
            put(answer(req))
        elif mode == "chatty":  # 50 progress lines per record, a few ms apart
            for _ in range(50):
                put(progress(req))
            time.sleep(0.005)
            put(answer(req))
        elif mode == "nul" and hit:
            put(b'{"type":"progress","id":%d,"phase":"ver\x00ifying"}\n' % req["id"] + answer(req))
        elif mode == "junk" and hit:
            put(b"this is not JSON\n[1,2]\n{\"type\":\"surprise\"}\n" + answer(req))
        elif mode in ("nan", "nan-noping") and hit:
            put(answer(req).replace(b'"p50": ', b'"p50": NaN, "was": '))
        elif mode == "longline" and hit:  # a line that never ends
            chunk = b"z" * 65536
            while True:
                put(chunk)
        elif mode == "junk-flood" and hit:  # nothing but invalid lines, for ever
            chunk = b"garbage, not a message\n" * 4096
            while True:
                put(chunk)
        elif mode == "chatty-stderr":  # writes to its log (stderr)
            sys.stderr.write("worker: working on %d\n" % req["id"])
            sys.stderr.flush()
            put(answer(req))
        elif mode == "exit-grandchild" and hit:  # exits; a child of its own keeps its stdout
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            os._exit(3)
        elif mode == "close-stdout" and hit:  # closes its output and lives on
            os.close(1)
            time.sleep(60)
            sys.exit(0)
        elif mode == "cancel-all":  # "cancelled" to every request, though no one cancelled
            put(answer(req, status="cancelled", reason="cancelled"))
        elif mode == "log-flood":  # 4 MiB to its log (stderr) per request, past any cap
            chunk = ("worker: chatter %d " % req["id"] + "y" * 65500 + "\n").encode()
            for _ in range(64):
                try:
                    os.write(2, chunk)
                except OSError:  # EFBIG past the runner's cap: the worker goes on
                    break
            put(answer(req))
        elif mode == "slow":  # a well-behaved worker that takes its time (another run may start)
            time.sleep(0.3)
            put(answer(req))
        elif mode == "hello-silent":
            continue
        elif mode == "wrong-id":
            put(line({"type": "record", "id": req["id"] + 1000, "record": record(req)}))
            put(answer(req))
        elif mode == "double":
            put(answer(req) + answer(req))
        elif mode == "malformed" and hit:
            bad = record(req)
            bad["variant"] = 5
            bad["timing"]["p50"] = "fast"
            put(line({"type": "record", "id": req["id"], "record": bad}))
        elif mode == "identity" and hit:
            put(line({"type": "record", "id": req["id"], "record": record(dict(req, variant="naive"))}))
        elif mode == "bigrecord" and hit:
            put(answer(req, nsamples=100000))
        elif mode == "escape" and hit:
            put(answer(req, status="error", reason="\x1b]0;pwned\x07\x1b[2J\rred\x9b31m"))
        else:
            put(answer(req))
    return 0


# ---------------------------------------------------------------------------------------------
# The driver side.

VARIANTS = "naive,smem,swizzle,cp_async,wmma"
SHAPES = "1x1x64x64,1x1x128x64,1x2x64x64,2x1x64x64"
N_ENTRIES = 20
# Memory the parent may grow by while it runs a plan, whatever the worker sends (VmHWM less the
# resident size the binary has doing nothing: the CUDA libraries it links, cuBLAS's alone ~200 MB,
# are mapped before main).
MEM_LIMIT_MB = float(os.environ.get("HOSTILE_MEM_LIMIT_MB", "100"))
BASELINE_KB = 0
TIME_SCALE = float(os.environ.get("HOSTILE_TIME_SCALE", "1"))


class Run:
    """benchtop run with a hostile worker: exit code, output, seconds, peak memory (VmHWM)."""

    def __init__(self, bt, tmp, mode, args, env=None, timeout=60, actions=None, worker=None,
                 variants=VARIANTS, shapes=SHAPES):
        self.session = os.path.join(tmp, "s-%s.json" % mode)
        e = dict(os.environ, BENCHTOP_WORKER=worker or os.path.abspath(__file__),
                 HOSTILE_MODE=mode, XDG_DATA_HOME=tmp + "/data", XDG_CACHE_HOME=tmp + "/cache")
        e.update(env or {})
        # Under ASan, freed memory waits in a quarantine (256 MB by default): not benchtop's.
        e["ASAN_OPTIONS"] = (e.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=16").lstrip(":")
        cmd = [bt, "run", "-v", variants, "-s", shapes, "--metrics", "none", "-o", self.session] + args
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.pid = p.pid
        self.hwm_kb = 0
        done = threading.Event()

        def sample():
            while not done.is_set():
                try:
                    with open("/proc/%d/status" % p.pid) as f:
                        for l in f:
                            if l.startswith("VmHWM:"):
                                self.hwm_kb = max(self.hwm_kb, int(l.split()[1]))
                except OSError:
                    pass
                time.sleep(0.02)

        th = threading.Thread(target=sample)
        th.start()
        # Output is drained all along, so that benchtop never blocks on a full pipe of ours.
        outs = {}
        readers = [threading.Thread(target=lambda k=k, f=f: outs.__setitem__(k, f.read()))
                   for k, f in (("out", p.stdout), ("err", p.stderr))]
        for t in readers:
            t.start()
        if actions:
            actions(p)
        try:
            p.wait(timeout=timeout * TIME_SCALE)
            self.hung = False
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            self.hung = True
        for t in readers:
            t.join()
        self.out, self.err = outs.get("out", b""), outs.get("err", b"")
        done.set()
        th.join()
        self.rc = p.returncode
        self.secs = time.monotonic() - t0
        self.out = self.out.decode("utf-8", "replace")
        self.err = self.err.decode("utf-8", "replace")

    def records(self):
        try:
            with open(self.session) as f:
                return json.load(f)["records"]
        except (OSError, ValueError, KeyError):
            return None

    def mem_mb(self):
        return max(0, self.hwm_kb - BASELINE_KB) / 1024.0


def loads(bt, path):
    r = subprocess.run([bt, "show", path, "--format", "json"], capture_output=True, timeout=30)
    return r.returncode == 0


def basic(c, bt, run, want_rc=0, want=N_ENTRIES, max_secs=30, statuses=None):
    c.check(not run.hung, "hung (killed after the test's timeout)")
    c.check(run.rc == want_rc, "exit %s, want %s; stderr: %s" % (run.rc, want_rc, run.err[-400:]))
    recs = run.records()
    c.check(recs is not None, "no session saved at %s" % run.session)
    recs = recs or []
    c.check(len(recs) == want, "%d records saved, want %d" % (len(recs), want))
    c.check(loads(bt, run.session), "the saved session does not load (benchtop show)")
    c.check(run.mem_mb() < MEM_LIMIT_MB, "peak memory %.1f MB, limit %.0f" % (run.mem_mb(), MEM_LIMIT_MB))
    c.check(run.secs < max_secs * TIME_SCALE, "took %.1f s, limit %.0f" % (run.secs, max_secs * TIME_SCALE))
    c.notes.append("%.1f s, +%.1f MB (VmHWM %.0f MB)" % (run.secs, run.mem_mb(), run.hwm_kb / 1024.0))
    for status, n in (statuses or {}).items():
        got = sum(1 for r in recs if r["status"] == status)
        c.check(got == n, "%d %s records, want %d" % (got, status, n))
    return recs


def by_variant(recs, v):
    return [r for r in recs if r.get("variant") == v]


def case_burst(c, bt, tmp):
    """1,000 lines in one write (999 progress + the record): nothing dropped."""
    basic(c, bt, Run(bt, tmp, "burst", []), statuses={"pass": N_ENTRIES})


def case_flood(c, bt, tmp):
    """~100 MB of progress before the first record: every record saved, memory bounded."""
    basic(c, bt, Run(bt, tmp, "flood", []), max_secs=60, statuses={"pass": N_ENTRIES})


def stop_and_resume(c, bt, tmp, sig, times, pause):
    """The parent stopped by sig, times times for pause seconds, while its worker keeps writing,
    then resumed each time: every record passes."""
    def act(p):
        for _ in range(times):
            time.sleep(0.3 * TIME_SCALE)
            p.send_signal(sig)
            time.sleep(pause)
            p.send_signal(signal.SIGCONT)
    basic(c, bt, Run(bt, tmp, "chatty", ["--watchdog", "1"], actions=act),
          statuses={"pass": N_ENTRIES})


def case_stop_continue(c, bt, tmp):
    """The parent stopped (SIGSTOP, as Ctrl-Z) while its worker keeps writing, then resumed."""
    stop_and_resume(c, bt, tmp, signal.SIGSTOP, 1, 2.0)


def case_tstp_continue(c, bt, tmp):
    """The same with SIGTSTP (what Ctrl-Z sends), twice, while the worker writes."""
    stop_and_resume(c, bt, tmp, signal.SIGTSTP, 2, 1.5)


def saved_records(path):
    try:
        with open(path) as f:
            return len(json.load(f)["records"])
    except (OSError, ValueError, KeyError):
        return 0


def interrupted(c, bt, tmp, sig, name):
    session = os.path.join(tmp, "s-flood-forever.json")

    def act(p):
        t0 = time.monotonic()  # the signal comes while the second request floods
        while saved_records(session) < 1 and time.monotonic() - t0 < 30 * TIME_SCALE and p.poll() is None:
            time.sleep(0.05)
        time.sleep(0.5)
        p.send_signal(sig)
        t0 = time.monotonic()
        try:
            p.wait(timeout=6 * TIME_SCALE)
        except subprocess.TimeoutExpired:
            c.check(False, "%s did not end the run within %.0f s" % (name, 6 * TIME_SCALE))
        c.notes.append("ended %.2f s after %s" % (time.monotonic() - t0, name))
    run = Run(bt, tmp, "flood-forever", ["--watchdog", "60"], actions=act)
    recs = run.records() or []
    c.check(not run.hung, "hung")
    c.check(run.rc == 130, "exit %s after %s, want 130" % (run.rc, name))
    c.check(len(recs) == 2 and recs[0]["status"] == "pass" and recs[1]["status"] == "cancelled",
            "saved %s, want a pass and a cancelled record" % [r["status"] for r in recs])
    c.check(loads(bt, run.session), "the saved session does not load")
    c.check(run.mem_mb() < MEM_LIMIT_MB, "peak memory %.1f MB" % run.mem_mb())


def case_sigint(c, bt, tmp):
    """SIGINT while the worker floods output and ignores cancellation: exit 130, saved."""
    interrupted(c, bt, tmp, signal.SIGINT, "SIGINT")


def case_sigterm(c, bt, tmp):
    """The same with SIGTERM."""
    interrupted(c, bt, tmp, signal.SIGTERM, "SIGTERM")


def case_sighup(c, bt, tmp):
    """The same with SIGHUP (the terminal went away)."""
    interrupted(c, bt, tmp, signal.SIGHUP, "SIGHUP")


def case_nul(c, bt, tmp):
    """A NUL byte inside a line costs that line only, not the record after it."""
    basic(c, bt, Run(bt, tmp, "nul", ["--watchdog", "30"]), max_secs=10,
          statuses={"pass": N_ENTRIES})


def case_junk(c, bt, tmp):
    """Lines that are not protocol messages are skipped; the record after them is kept."""
    basic(c, bt, Run(bt, tmp, "junk", ["--watchdog", "30"]), max_secs=10,
          statuses={"pass": N_ENTRIES})


def case_nan(c, bt, tmp):
    """A record with NaN is refused at once (the worker answers the runner's ping): one error
    record per bad record, no waiting for the watchdog."""
    recs = basic(c, bt, Run(bt, tmp, "nan", ["--watchdog", "30"]), want_rc=1, max_secs=10,
                 statuses={"pass": N_ENTRIES - 4, "error": 4})
    for r in by_variant(recs, "smem"):
        c.check(r["status"] == "error" and "not valid JSON" in r["reason"], "smem: %s" % r.get("reason"))


def case_nan_noping(c, bt, tmp):
    """The same from a worker that does not answer pings: the watchdog (1 s) ends each one."""
    recs = basic(c, bt, Run(bt, tmp, "nan-noping", ["--watchdog", "1"]), want_rc=1, max_secs=20,
                 statuses={"pass": N_ENTRIES - 4, "error": 4})
    for r in by_variant(recs, "smem"):
        c.check("not valid JSON" in r["reason"], "smem: %s" % r.get("reason"))


def case_longline(c, bt, tmp):
    """A line that never ends: bounded memory, the watchdog ends it, the rest runs."""
    recs = basic(c, bt, Run(bt, tmp, "longline", ["--watchdog", "1"]), want_rc=1, max_secs=30,
                 statuses={"pass": N_ENTRIES - 4, "error": 4})
    for r in by_variant(recs, "smem"):
        c.check("longer than" in r["reason"] or "did not take up" in r["reason"], "smem: %s" % r.get("reason"))


def case_junk_flood(c, bt, tmp):
    """A worker that writes nothing but invalid lines: the watchdog ends it, and the warnings
    about it are held to one a second (stderr stays short)."""
    run = Run(bt, tmp, "junk-flood", ["--watchdog", "1"], variants="naive,smem,wmma",
              shapes="1x1x64x64")
    recs = basic(c, bt, run, want=3, want_rc=1, max_secs=20, statuses={"pass": 2, "error": 1})
    n = len(run.err.splitlines())
    c.check(n < 20, "%d lines on stderr" % n)
    c.notes.append("%d stderr lines" % n)


def case_hello_silent(c, bt, tmp):
    """A worker that says hello and then nothing obeys --watchdog (1 s), not 120 s."""
    recs = basic(c, bt, Run(bt, tmp, "hello-silent", ["--watchdog", "1"], shapes="1x1x64x64",
                            variants="naive,smem,wmma"), want=3, want_rc=1, max_secs=12,
                 statuses={"error": 3})
    c.check(all("watchdog" in r["reason"] for r in recs), "reasons: %s" % recs[0]["reason"] if recs else "")


def case_wrong_id(c, bt, tmp):
    """A record for another request id is refused (and said so); the right one is kept."""
    run = Run(bt, tmp, "wrong-id", [])
    basic(c, bt, run, statuses={"pass": N_ENTRIES})
    c.check("id" in run.err, "no warning about the foreign id on stderr")


def case_double(c, bt, tmp):
    """A second record for the same request is refused."""
    basic(c, bt, Run(bt, tmp, "double", []), statuses={"pass": N_ENTRIES})


def case_malformed(c, bt, tmp):
    """A record with wrong types becomes an error record of the request it answers; the session
    still loads in show, diff and replay."""
    run = Run(bt, tmp, "malformed", [])
    recs = basic(c, bt, run, want_rc=1, statuses={"pass": N_ENTRIES - 4, "error": 4})
    bad = by_variant(recs, "smem")
    c.check(len(bad) == 4 and all("invalid record" in r["reason"] for r in bad),
            "smem records: %s" % [(r["status"], r["reason"]) for r in bad])
    c.check(all(r["shape"] != "0x0x0x0" for r in recs), "a record with shape 0x0x0x0")
    d = subprocess.run([bt, "diff", run.session, run.session], capture_output=True, timeout=30)
    c.check(d.returncode == 0, "diff refuses the session: %s" % d.stderr[-200:])
    env = dict(os.environ, BENCHTOP_WORKER=os.path.abspath(__file__), HOSTILE_MODE="good",
               XDG_DATA_HOME=tmp + "/data", XDG_CACHE_HOME=tmp + "/cache")
    r = subprocess.run([bt, "replay", run.session, "-o", tmp + "/replayed.json"], env=env,
                       capture_output=True, timeout=60)
    c.check(r.returncode in (0, 1) and os.path.exists(tmp + "/replayed.json"),
            "replay refuses the session: %s" % r.stderr[-300:])


def case_identity(c, bt, tmp):
    """A record that answers for another variant than the request is refused as such."""
    recs = basic(c, bt, Run(bt, tmp, "identity", []), want_rc=1,
                 statuses={"pass": N_ENTRIES - 4, "error": 4})
    for r in by_variant(recs, "smem"):
        c.check("invalid record" in r["reason"], "smem: %s" % r["reason"])


def case_bin_false(c, bt, tmp):
    """A worker that cannot start (/bin/false) ends the run with a clear error, not a spin."""
    run = Run(bt, tmp, "good", [], worker="/bin/false", timeout=20)
    c.check(not run.hung, "spins (killed after 20 s)")
    c.check(run.rc not in (0, 130), "exit %s" % run.rc)
    c.check("/bin/false" in run.err and "worker" in run.err, "stderr: %s" % run.err[-300:])
    c.check(run.secs < 10 * TIME_SCALE, "took %.1f s" % run.secs)
    c.notes.append("%.1f s: %s" % (run.secs, run.err.strip().splitlines()[-1:] if run.err.strip() else ""))


def case_exit_at_once(c, bt, tmp):
    """The same from a scripted worker that exits before hello."""
    run = Run(bt, tmp, "exit-at-once", [], timeout=20)
    c.check(not run.hung and run.rc not in (0, 130) and run.secs < 10 * TIME_SCALE,
            "exit %s after %.1f s (hung: %s)" % (run.rc, run.secs, run.hung))


def case_hello_exit(c, bt, tmp):
    """A worker that dies on every request: each costs its record, the run ends."""
    recs = basic(c, bt, Run(bt, tmp, "hello-exit", [], timeout=60, shapes="1x1x64x64,1x1x128x64",
                            variants="naive,smem"), want=4, want_rc=1, max_secs=20,
                 statuses={"error": 4})
    c.check(all("exited" in r["reason"] for r in recs), "reasons: %s" % (recs[0]["reason"] if recs else ""))


def case_bigrecord(c, bt, tmp):
    """A legitimate large record (100,000 samples, ~2 MB line) is accepted."""
    recs = basic(c, bt, Run(bt, tmp, "bigrecord", [], variants="naive,smem", shapes="1x1x64x64"),
                 want=2, statuses={"pass": 2})
    c.check(all(len(r["timing"]["samples"]) == 100000 for r in by_variant(recs, "smem")), "samples lost")


def one_error(c, bt, tmp, mode, want, unwanted):
    run = Run(bt, tmp, mode, ["--watchdog", "2"], timeout=120)
    recs = basic(c, bt, run, want_rc=1, max_secs=60, statuses={"pass": N_ENTRIES - 4, "error": 4})
    reasons = [r.get("reason", "") for r in by_variant(recs, "smem")]
    c.check(reasons and all(want in w and unwanted not in w for w in reasons),
            "smem's reasons %r, want %r (not %r)" % (reasons[:1], want, unwanted))


def case_exit_grandchild(c, bt, tmp):
    """A worker that exits while a child of its own holds its stdout: the record says the
    worker exited (status 3), not that it did not take up the request."""
    one_error(c, bt, tmp, "exit-grandchild", "the worker exited (status 3)", "did not take up")


def case_close_stdout(c, bt, tmp):
    """A worker that closes its stdout and lives on: the record says so and that it was
    stopped, not that it exited."""
    one_error(c, bt, tmp, "close-stdout", "closed its output", "the worker exited")


def case_cancel_all(c, bt, tmp):
    """A worker answering 'cancelled' to every request no one cancelled: exit 1, and a line
    saying nothing was measured (not a quiet '20 cancelled' and exit 0)."""
    run = Run(bt, tmp, "cancel-all", [])
    basic(c, bt, run, want_rc=1, statuses={"cancelled": N_ENTRIES})
    c.check("nothing was measured" in run.err, "no line saying nothing was measured: %s" % run.err[-300:])


def case_log_flood(c, bt, tmp):
    """A worker writing 4 MiB to its log per request: worker.log stops at the cap (1 MiB here)
    with a line saying what was dropped, every record is saved; the next run keeps this run's
    log as worker.log.1 and starts a new one."""
    cap = 1 << 20
    log = os.path.join(tmp, "cache", "benchtop", "worker.log")
    env = {"BENCHTOP_WORKER_LOG_MAX": str(cap)}
    basic(c, bt, Run(bt, tmp, "log-flood", [], env=env), statuses={"pass": N_ENTRIES})
    size = os.path.getsize(log) if os.path.exists(log) else -1
    c.check(0 < size <= cap + 4096, "worker.log is %d bytes, cap %d" % (size, cap))
    with open(log, "rb") as f:
        f.seek(max(0, size - 4096))
        tail = f.read().decode(errors="replace")
    c.check("reached its cap" in tail, "no line about the dropped messages at the log's end")
    basic(c, bt, Run(bt, tmp, "chatty-stderr", [], env=env), statuses={"pass": N_ENTRIES})
    c.check(os.path.exists(log + ".1") and os.path.getsize(log + ".1") == size,
            "the previous run's log is not kept as worker.log.1")
    size2 = os.path.getsize(log) if os.path.exists(log) else -1
    c.check(0 < size2 < 64 * 1024, "the second run's log is %d bytes (not a new one)" % size2)
    c.notes.append("log %d then %d bytes" % (size, size2))


def case_escape(c, bt, tmp):
    """Escape sequences in a worker's record never reach the terminal raw (table and JSON)."""
    for fmt in ("table", "json", "csv", "md"):
        if os.path.exists(os.path.join(tmp, "s-escape.json")):  # each format a session of its own
            os.unlink(os.path.join(tmp, "s-escape.json"))
        run = Run(bt, tmp, "escape", ["--format", fmt])
        raw = run.out + run.err
        c.check(not any(ch in raw for ch in "\x1b\x07\r\x9b"), "%s: a raw control byte in the output" % fmt)
        if fmt == "json":
            try:
                json.loads(run.out)
            except ValueError as e:
                c.check(False, "json output does not parse: %s" % e)
    # tune prints a line per measurement and a closing note with a failed record's reason.
    env = dict(os.environ, BENCHTOP_WORKER=os.path.abspath(__file__), HOSTILE_MODE="escape",
               XDG_DATA_HOME=tmp + "/data", XDG_CACHE_HOME=tmp + "/cache")
    for fmt in ("table", "csv"):
        p = subprocess.run([bt, "tune", "-v", "smem", "-s", "1x1x64x64", "--metrics", "none",
                            "--format", fmt, "-o", tmp + "/tune-%s.json" % fmt], env=env,
                           capture_output=True, timeout=60 * TIME_SCALE)
        raw = (p.stdout + p.stderr).decode("utf-8", "replace")
        c.check(p.returncode == 1 and "pwned" in raw, "tune %s: exit %d" % (fmt, p.returncode))
        c.check(not any(ch in raw for ch in "\x1b\x07\r\x9b"), "tune %s: a raw control byte in the output" % fmt)


def case_sigpipe(c, bt, tmp):
    """stdout closed early (`| true`: the reader is gone before the first row; with `| head -2`
    a slow reader on a loaded machine could take every row before leaving, and nothing would
    be closed): the run goes on, every record is saved, and stderr says so."""
    session = tmp + "/pipe.json"
    env = dict(os.environ, BENCHTOP_WORKER=os.path.abspath(__file__), HOSTILE_MODE="chatty",
               XDG_DATA_HOME=tmp + "/data", XDG_CACHE_HOME=tmp + "/cache")
    t0 = time.monotonic()
    p = subprocess.run(["bash", "-c", '"$0" run -v %s -s %s --metrics none -o "$1" 2> "$1.err" | true; '
                        'echo "${PIPESTATUS[0]}"' % (VARIANTS, SHAPES), bt, session],
                       env=env, capture_output=True, timeout=60 * TIME_SCALE)
    lines = p.stdout.decode().splitlines()
    rc = int(lines[-1]) if lines else -1
    err = open(session + ".err").read() if os.path.exists(session + ".err") else ""
    try:
        n = len(json.load(open(session))["records"])
    except (OSError, ValueError):
        n = -1
    c.check(n == N_ENTRIES, "%d records saved, want %d (exit %d)" % (n, N_ENTRIES, rc))
    c.check(rc == 0, "exit %d, want 0 (the plan ran and was saved)" % rc)
    c.check("stdout" in err, "stderr does not say stdout was closed: %s" % err[-300:])
    c.notes.append("%.1f s, exit %d" % (time.monotonic() - t0, rc))


# A case here is case_NAME(c, bt, tmp).
CASES = {n: (lambda c, f=f: f(c, c.bt, c.tmp)) for n, f in hostile_suite.cases_in(globals()).items()}


def measure_baseline(bt):
    global BASELINE_KB
    p = subprocess.Popen([bt, "--version"], stdout=subprocess.DEVNULL)
    BASELINE_KB = os.wait4(p.pid, 0)[2].ru_maxrss
    p.returncode = 0
    print("baseline: benchtop --version peaks at %.0f MB (VmHWM); limits below are growth past it"
          % (BASELINE_KB / 1024.0))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        sys.exit(worker(os.environ.get("HOSTILE_MODE", "good")))
    sys.exit(hostile_suite.main(__doc__, CASES, "bt-hostile-", before=measure_baseline))
