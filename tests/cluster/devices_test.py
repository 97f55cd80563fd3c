#!/usr/bin/env python3
"""run --devices without GPUs: the scripted worker pretends to be 4 GPUs (FAKE_GPUS=4, one worker
per GPU picked by BENCHTOP_DEVICE). A plan of 40 entries over 4 GPUs must give the same 40
records, in plan order, as one GPU, each naming its GPU; a worker killed mid-run costs at most
its record; a GPU whose worker keeps dying is dropped with one line and the others finish the
plan; --devices naming a GPU the machine lacks is one line and nothing runs.
usage: devices_test.py BENCHTOP FAKE_WORKER"""
import json, os, re, signal, subprocess, sys, tempfile, time

BT, WORKER = (os.path.abspath(a) for a in sys.argv[1:3])
T = tempfile.mkdtemp(prefix="bt-devices-")
failures = []
PLAN = ["-v", "naive,smem,swizzle,cp_async,wmma,mma",
        "-s", "1x8x512x64,2x8x512x64,2x8x512x64:causal,1x8x1024x128,4x16x2048x128",
        "--knob", "stages=2,3", "--metrics", "none", "--seed", "7", "--format", "csv"]


def check(name, ok, detail=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, "" if ok else ": " + str(detail)[:2000]))
    if not ok:
        failures.append(name)


def env_for(**extra):
    e = dict(os.environ, BENCHTOP_WORKER=WORKER, XDG_DATA_HOME=os.path.join(T, "data"),
             XDG_CACHE_HOME=os.path.join(T, "cache"), FAKE_GPUS="4")
    for k in [k for k in e if k.startswith(("SLURM_", "FAKE_", "BENCHTOP_DEVICE"))]:
        if k != "FAKE_GPUS":
            del e[k]
    e.update(extra)
    return e


def run(args, **extra):
    return subprocess.run([BT, "run"] + PLAN + args, cwd=T, env=env_for(**extra),
                          capture_output=True, text=True, timeout=240)


def records(path):
    return json.load(open(os.path.join(T, path)))["records"]


def key(r):
    return (r["variant"], r["knobs"], r["shape"], json.dumps(r.get("options"), sort_keys=True))


def errors_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("benchtop") and "session:" not in l]


def main():
    p = run(["-o", "one.json"])
    check("one GPU", p.returncode == 0 and len(records("one.json")) == 40, p.stderr)
    one = records("one.json")

    for spec in ("all", "0,1,2,3"):
        out = "four-%s.json" % spec.replace(",", "")
        p = run(["--devices", spec, "-o", out])
        check("--devices %s runs" % spec, p.returncode == 0, p.stderr)
        four = records(out)
        check("--devices %s: the same 40 records as one GPU, in plan order" % spec,
              [key(r) for r in four] == [key(r) for r in one],
              next((str((a, b)) for a, b in zip(map(key, one), map(key, four)) if a != b),
                   "%d vs %d" % (len(four), len(one))))
        check("--devices %s: plan_index 0..39" % spec, [r["plan_index"] for r in four] == list(range(40)))
        used = sorted({r["device"].get("index") for r in four})
        check("--devices %s: every GPU ran entries" % spec, used == [0, 1, 2, 3], used)
        check("--devices %s: each record names its GPU (index, uuid, name)" % spec,
              all(r["device"].get("uuid", "").endswith("%012d" % r["device"]["index"])
                  and r["device"].get("name") for r in four))

    # A worker killed from outside while it runs a record: at most that record is lost.
    proc = subprocess.Popen([BT, "run"] + PLAN + ["--devices", "all", "-o", "killed.json"], cwd=T,
                            env=env_for(FAKE_DELAY="1"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    victim = None
    deadline = time.time() + 60
    while victim is None and time.time() < deadline:
        time.sleep(0.1)
        try:
            done = len(records("killed.json"))
        except (OSError, ValueError, KeyError):
            done = 0
        if done < 3:
            continue
        for pid in os.listdir("/proc"):
            try:
                stat = open("/proc/%s/stat" % pid).read()
                env = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
            except OSError:
                continue
            if pid.isdigit() and int(stat.rsplit(")", 1)[1].split()[1]) == proc.pid \
                    and b"BENCHTOP_DEVICE=2" in env:
                victim = int(pid)
        if victim:
            os.kill(victim, signal.SIGKILL)
    _, err = proc.communicate(timeout=240)
    killed = records("killed.json")
    bad = [r for r in killed if r["status"] != "pass"]
    check("a killed worker: found and killed", victim is not None)
    check("a killed worker costs at most one record (40 records, plan order)",
          proc.returncode in (0, 1) and len(killed) == 40 and len(bad) <= 1
          and [key(r) for r in killed] == [key(r) for r in one]
          and all("worker" in r["reason"] for r in bad), (proc.returncode, len(killed), bad and bad[0]["reason"], err))

    # A worker that hangs: the watchdog kills it, its record says so, a new worker goes on.
    # Records take ~0.5 s here (FAKE_DELAY), so the other GPUs are still busy when the new
    # worker starts: at 0.08 s they could finish the plan first, leaving it nothing to run.
    p = run(["--devices", "all", "--watchdog", "1", "-o", "hung.json"],
            FAKE_HANG_ONCE=os.path.join(T, "hung-marker"), FAKE_DELAY="1")
    hung = records("hung.json")
    lost = [r for r in hung if r["status"] != "pass"]
    check("a hung worker costs its record and is replaced (40 records, plan order)",
          len(hung) == 40 and len(lost) == 1 and lost[0]["device"]["index"] == 3
          and [key(r)[:3] for r in hung] == [key(r)[:3] for r in one]
          and sum(r["device"]["index"] == 3 for r in hung) > 1,
          (len(hung), [r["reason"] for r in lost], "records per GPU",
           [sum(r["device"]["index"] == g for r in hung) for g in range(4)], p.stderr))

    # A GPU whose worker dies on every request: dropped after 3, the others run the rest.
    p = run(["--devices", "all", "-o", "dropped.json"], FAKE_CRASH_GPU="1")
    dropped = records("dropped.json")
    lost = [r for r in dropped if r["status"] != "pass"]
    lines = [l for l in errors_lines(p.stderr) if "dropped" in l]
    check("a failing GPU is dropped with one line", len(lines) == 1 and "GPU 1" in lines[0]
          and "the other GPUs go on" in lines[0], p.stderr)
    check("a failing GPU costs its 3 records, the rest run elsewhere",
          len(dropped) == 40 and len(lost) == 3 and all(r["device"]["index"] == 1 for r in lost)
          and [key(r) for r in dropped] == [key(r) for r in one] and p.returncode == 1,
          (len(dropped), len(lost), p.returncode))

    # GPUs of different kinds: said once.
    p = run(["--devices", "0,2", "-o", "mixed.json"], FAKE_GPU_NAMES="A,A,B,B")
    check("GPUs of different kinds are said", p.returncode == 0 and
          sum("different kinds" in l for l in p.stderr.splitlines()) == 1, p.stderr)

    # What --devices refuses: one line each, nothing written.
    for args, want, rc in ((["--devices", "0,5"], "GPU 5 does not exist (this machine has 4: 0 to 3)", 1),
                           (["--devices", "0,0"], "GPU 0 named twice", 2),
                           (["--devices", "1-3"], "expected all or GPU indices", 2)):
        p = run(args + ["-o", "refused.json"])
        lines = errors_lines(p.stderr)
        check("--devices %s refused in one line" % args[1], p.returncode == rc and len(lines) == 1
              and want in lines[0] and not os.path.exists(os.path.join(T, "refused.json")),
              (p.returncode, p.stderr))

    # tune takes --devices too: the same search (its landscape is a fixed function of the knobs
    # under FAKE_TUNE), the same winner, measured on every GPU.
    tuned = {}
    for spec in ("", "all"):
        out = "tune-%s.json" % (spec or "one")
        p = subprocess.run([BT, "tune", "-v", "mma", "-s", "2x8x512x64", "--budget", "24",
                            "--strategy", "random", "--seed", "3", "--metrics", "none", "--no-table",
                            "-o", out] + (["--devices", spec] if spec else []), cwd=T,
                           env=env_for(FAKE_TUNE="1"), capture_output=True, text=True, timeout=240)
        winner = re.search(r"winner\s+(\S+)", p.stdout)
        tuned[spec] = (p.returncode, winner and winner.group(1), len(records(out)),
                       sorted({r["device"].get("index", -1) for r in records(out)}))
    check("tune --devices all: the same winner and budget as one GPU, every GPU used",
          tuned[""][:3] == tuned["all"][:3] and tuned[""][0] == 0 and tuned["all"][3] == [0, 1, 2, 3],
          tuned)

    # replay takes --devices too, and keeps plan order.
    p = subprocess.run([BT, "replay", "one.json", "--devices", "all", "-o", "replayed.json"], cwd=T,
                       env=env_for(), capture_output=True, text=True, timeout=240)
    check("replay --devices all: 40 records in plan order", p.returncode == 0 and
          [r["plan_index"] for r in records("replayed.json")] == list(range(40)), p.stderr)


try:
    main()
finally:
    print("devices: %d failed" % len(failures))
sys.exit(1 if failures else 0)
