#!/usr/bin/env python3
"""docs/cluster.md end to end without a cluster or a GPU: its three files (sweep.sbatch,
merge.sbatch, submit.sh), taken from the document as they stand, run with a stand-in sbatch
(fake_sbatch.py) and the scripted worker. The merged session must equal an unsharded run of the
same command line record for record (variant, knobs, shape, options, in plan order); then every
problem merge must catch (missing, overlapping, cut-short, killed, interrupted, foreign shards)
gets one line, exit 1, and nothing written.
usage: cluster_test.py BENCHTOP FAKE_WORKER CLUSTER_MD FAKE_SBATCH"""
import json, os, re, shutil, signal, subprocess, sys, tempfile, time

BT, WORKER, DOC, SBATCH = (os.path.abspath(a) for a in sys.argv[1:5])
T = tempfile.mkdtemp(prefix="bt-cluster-")
failures = []


def check(name, ok, detail=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, "" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def files_from_doc():
    """Every fenced block that follows a <!-- file: NAME --> line, under its name."""
    text = open(DOC).read()
    out = {}
    for m in re.finditer(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", text, re.S):
        out[m.group(1)] = m.group(2)
    return out


def env_for(**extra):
    e = dict(os.environ, PATH=os.path.join(T, "bin") + ":" + os.environ["PATH"],
             BENCHTOP_WORKER=WORKER, XDG_DATA_HOME=os.path.join(T, "data"),
             XDG_CACHE_HOME=os.path.join(T, "cache"), FAKE_SLURM_DIR=os.path.join(T, "slurm"))
    for k in [k for k in e if k.startswith("SLURM_")]:
        del e[k]
    e.update(extra)
    return e


def run(args, **extra):
    return subprocess.run(args, cwd=T, env=env_for(**extra), capture_output=True, text=True)


def records(path):
    return json.load(open(os.path.join(T, path)))["records"]


def key(r):
    return (r["variant"], r["knobs"], r["shape"], json.dumps(r.get("options"), sort_keys=True))


def sweep_argv(jid, shard):
    """The `benchtop run` arguments of sweep.sbatch for one task, as bash expands them."""
    probe = ("benchtop() { printf '%s\\0' \"$@\"; }\n" + open(os.path.join(T, "sweep.sbatch")).read())
    p = subprocess.run(["bash", "-c", probe], cwd=T, capture_output=True, text=True,
                       env=env_for(SLURM_ARRAY_JOB_ID=str(jid), SLURM_ARRAY_TASK_ID=str(shard - 1)))
    return p.stdout.split("\0")[:-1]


def merge_refuses(name, files, want, out="bad.json"):
    """merge of files exits 1 with one line saying `want` (and 'nothing written'); out untouched."""
    before = open(os.path.join(T, out)).read() if os.path.exists(os.path.join(T, out)) else None
    p = run([BT, "merge"] + files + ["-o", out])
    lines = [l for l in p.stderr.splitlines() if l and "nothing written" not in l]
    after = open(os.path.join(T, out)).read() if os.path.exists(os.path.join(T, out)) else None
    ok = (p.returncode == 1 and len(lines) == 1 and re.search(want, lines[0]) is not None
          and "nothing written" in p.stderr and before == after)
    check("merge refuses: " + name, ok, "rc %d, stderr %r, output %s" %
          (p.returncode, p.stderr, "changed" if before != after else "unchanged"))


def main():
    docs = files_from_doc()
    check("docs/cluster.md holds sweep.sbatch, merge.sbatch and submit.sh",
          set(docs) >= {"sweep.sbatch", "merge.sbatch", "submit.sh"}, str(sorted(docs)))
    for name, text in docs.items():
        open(os.path.join(T, name), "w").write(text)
    os.makedirs(os.path.join(T, "bin"))
    os.symlink(BT, os.path.join(T, "bin", "benchtop"))
    with open(os.path.join(T, "bin", "sbatch"), "w") as f:
        f.write("#!/bin/sh\nexec python3 %s \"$@\"\n" % SBATCH)
    os.chmod(os.path.join(T, "bin", "sbatch"), 0o755)

    # The whole pipeline as a user submits it.
    t0 = time.time()
    p = run(["bash", "submit.sh"])
    check("submit.sh runs (the array, then merge)", p.returncode == 0, p.stdout + p.stderr)
    jobs = json.load(open(os.path.join(T, "slurm", "jobs.json")))["jobs"]
    jid = min(int(j) for j in jobs)
    logs = sorted(os.listdir(os.path.join(T, "shards")))
    merge_log = "".join(open(os.path.join(T, "shards", l)).read() for l in logs if "merge" in l)
    check("merge step merged 4 shards", "merged 4 shards" in merge_log, merge_log)
    print("array and merge: %.1f s" % (time.time() - t0))

    # The same command line unsharded, on one host.
    argv = sweep_argv(jid, 1)
    i = argv.index("--shard")
    argv = argv[:i] + argv[i + 2:]
    argv[argv.index("-o") + 1] = "whole.json"
    p = run([BT] + argv)
    check("unsharded run", p.returncode == 0, p.stderr)
    whole, merged = records("whole.json"), records("sweep.json")
    check("merged has as many records as unsharded (%d)" % len(whole), len(whole) == len(merged),
          "%d vs %d" % (len(whole), len(merged)))
    check("merged equals unsharded record for record (variant, knobs, shape, options)",
          [key(r) for r in whole] == [key(r) for r in merged],
          next((str((a, b)) for a, b in zip(map(key, whole), map(key, merged)) if a != b), ""))
    check("records in plan order", [r["plan_index"] for r in merged] == list(range(len(merged))))
    check("every record keeps its host and device",
          all(r.get("host") and r.get("device", {}).get("name") for r in merged))
    shards = ["shards/shard-%d.json" % k for k in range(4)]
    sizes = [len(records(s)) for s in shards]
    check("round-robin slices (10 each of 40)", sizes == [10, 10, 10, 10], str(sizes))
    check("shard k holds entries k-1, k-1+4, ...",
          all(r["plan_index"] % 4 == k for k, s in enumerate(shards) for r in records(s)))
    info = json.load(open(os.path.join(T, shards[2])))["shard"]
    check("shard session says which shard of what", info["index"] == 3 and info["count"] == 4
          and info["plan_size"] == 40 and len(info["plan_hash"]) == 16, str(info))

    # What merge must refuse, one line each, nothing written.
    merge_refuses("a missing shard", shards[:3], r"shard 4/4 missing")
    shutil.copy(os.path.join(T, shards[1]), os.path.join(T, "again.json"))
    merge_refuses("overlapping shards", shards + ["again.json"], r"both shard 2/4")
    data = open(os.path.join(T, shards[3])).read()
    open(os.path.join(T, "cut.json"), "w").write(data[: len(data) // 2])
    merge_refuses("a file cut short", shards[:3] + ["cut.json"], r"cut\.json:\d+:\d+: .*truncated")
    merge_refuses("not a shard", shards[:3] + ["whole.json"], r"whole\.json is not a shard")

    # Shard 2/4 of the same plan stopped by SIGKILL after its first record, and by SIGTERM (a
    # time limit): both are short, the interrupted one's last record cancelled.
    argv = sweep_argv(jid, 2)
    argv[argv.index("--shard") + 1] = "2/4"
    for sig, want in ((signal.SIGKILL, r"holds 1 of its 10 records: the job stopped early"),
                      (signal.SIGTERM, r"records\[1\] \(\w+\) was cancelled")):
        out = "stopped-%d.json" % sig
        argv[argv.index("-o") + 1] = out
        proc = subprocess.Popen([BT] + argv, cwd=T, env=env_for(FAKE_DELAY="1"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                if len(records(out)) >= 1:
                    break
            except (OSError, ValueError, KeyError):
                pass
            time.sleep(0.05)
        time.sleep(0.2)
        proc.send_signal(sig)
        proc.wait()
        merge_refuses("a shard stopped by signal %d" % sig, [shards[0], out] + shards[2:], want)

    # Shards of other plans: another seed, another N.
    argv = sweep_argv(jid + 1, 4)
    argv[argv.index("--shard") + 1] = "4/4"
    argv[argv.index("-o") + 1] = "other-seed.json"
    run([BT] + argv)
    merge_refuses("another seed", shards[:3] + ["other-seed.json"],
                  r"other-seed\.json \(shard 4/4\) comes from another plan .*seed differs")
    argv = sweep_argv(jid, 1)
    argv[argv.index("--shard") + 1] = "1/3"
    argv[argv.index("-o") + 1] = "third.json"
    run([BT] + argv)
    merge_refuses("another N", ["third.json"] + shards[1:], r"third\.json is shard 1/3 but .* 2/4")

    # Records edited into the wrong slice, or twice.
    s = json.load(open(os.path.join(T, shards[0])))
    s["records"][1]["plan_index"] = 5
    json.dump(s, open(os.path.join(T, "foreign.json"), "w"))
    merge_refuses("a record of another slice", ["foreign.json"] + shards[1:],
                  r"plan entry 5, which belongs to shard 2/4, not 1/4")
    s = json.load(open(os.path.join(T, shards[0])))
    s["records"].append(s["records"][0])
    json.dump(s, open(os.path.join(T, "twice.json"), "w"))
    merge_refuses("a record twice", ["twice.json"] + shards[1:], r"repeats plan entry 0")

    # Schemas: a shard of another schema than the rest.
    s = json.load(open(os.path.join(T, shards[0])))
    mine = s["schema"]
    version = int(mine.rsplit("/", 1)[1])
    if version > 1:  # the same shard written as /1 (a plan's knobs one list for all variants)
        other = json.loads(json.dumps(s))
        other["schema"] = "benchtop.session/1"
        pv = other["plan"]["variants"]
        other["plan"]["variants"] = [v["name"] if isinstance(v, dict) else v for v in pv]
        other["plan"]["knobs"] = []
        json.dump(other, open(os.path.join(T, "schema.json"), "w"))
        want = r"is benchtop.session/(1 but .* is benchtop.session/%d|%d but .* is benchtop.session/1)" % (
            version, version)
    else:  # the only schema there is: a newer one is refused by the loader
        s["schema"] = "benchtop.session/%d" % (version + 1)
        json.dump(s, open(os.path.join(T, "schema.json"), "w"))
        want = r"schema\.json: schema: .* newer than this benchtop reads"
    merge_refuses("mixed schemas", ["schema.json"] + shards[1:], want)

    # The output: never a shard, never an existing file without --force.
    open(os.path.join(T, "taken.json"), "w").write("mine\n")
    merge_refuses("an existing output", shards, r"taken\.json exists", out="taken.json")
    p = run([BT, "merge"] + shards + ["-o", shards[0], "--force"])
    check("merge never writes over a shard", p.returncode == 1 and "is one of the shards" in p.stderr
          and len(records(shards[0])) == 10, p.stderr)
    p = run([BT, "merge"] + shards + ["-o", "taken.json", "--force"])
    check("--force replaces an existing output", p.returncode == 0 and len(records("taken.json")) == 40,
          p.stderr)

    # --shard slurm in arrays it cannot read, and bad I/N: one line, exit 2.
    base = [BT, "run", "-v", "naive", "-s", "1x1x64x64", "-o", "x.json"]
    for extra, args, want in (
            ({"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "6",
              "SLURM_ARRAY_TASK_COUNT": "3"}, ["--shard", "slurm"], "not one of 3 evenly spaced"),
            ({}, ["--shard", "slurm"], "SLURM_ARRAY_TASK_ID is not set"),
            ({}, ["--shard", "0/4"], "numbered 1 to 4"),
            ({}, ["--shard", "5/4"], "numbered 1 to 4"),
            ({}, ["--shard", "2"], "expects I/N")):
        p = run(base + args, **extra)
        check("run %s refused (%s)" % (" ".join(args), want), p.returncode == 2 and want in p.stderr
              and len(p.stderr.strip().splitlines()) == 1 and not os.path.exists(os.path.join(T, "x.json")),
              "rc %d %r" % (p.returncode, p.stderr))
    p = run(base + ["--shard", "slurm"], SLURM_ARRAY_TASK_ID="7", SLURM_ARRAY_TASK_MIN="3",
            SLURM_ARRAY_TASK_STEP="2", SLURM_ARRAY_TASK_COUNT="4")
    check("--shard slurm reads a stepped array (task 7 of 3,5,7,9 is shard 3/4)", p.returncode == 0
          and json.load(open(os.path.join(T, "x.json")))["shard"]["index"] == 3, p.stderr)


try:
    main()
finally:
    if not failures:
        shutil.rmtree(T, ignore_errors=True)
    else:
        print("work left in", T)
print("%d checks failed" % len(failures) if failures else "PASS cluster")
sys.exit(1 if failures else 0)
