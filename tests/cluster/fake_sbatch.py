#!/usr/bin/env python3
"""A stand-in for Slurm's sbatch, enough to run docs/cluster.md's scripts on one machine: reads
the #SBATCH lines and the command line (--array, --parsable, --dependency, --export, --output,
--job-name), runs every array task at once with the variables Slurm sets (SLURM_JOB_ID,
SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID/_MIN/_MAX/_STEP/_COUNT), waits for them, and prints the
job id. Jobs run at submission (a dependency is met by then; afterok on a failed job does not
run, as Slurm would leave it pending). State lives in $FAKE_SLURM_DIR. Test fixture only."""
import json, os, re, shlex, subprocess, sys

state_dir = os.environ.get("FAKE_SLURM_DIR") or os.path.join(os.getcwd(), ".fake-slurm")
os.makedirs(state_dir, exist_ok=True)
jobs_file = os.path.join(state_dir, "jobs.json")
jobs = json.load(open(jobs_file)) if os.path.exists(jobs_file) else {"next": 4242, "jobs": {}}


def fail(msg):
    sys.stderr.write("sbatch: error: %s\n" % msg)
    sys.exit(1)


def parse_opts(words, opts):
    """--name=value, --name value and --flag into opts; returns the words left (script, args)."""
    takes = {"array", "dependency", "export", "output", "job-name", "time", "gpus",
             "cpus-per-task", "gres", "partition", "nodes", "ntasks", "mem", "account"}
    i = 0
    while i < len(words):
        w = words[i]
        if not w.startswith("-"):
            return words[i:]
        name, eq, val = w.lstrip("-").partition("=")
        name = {"a": "array", "d": "dependency", "o": "output", "J": "job-name", "t": "time",
                "p": "partition", "N": "nodes", "n": "ntasks", "c": "cpus-per-task",
                "G": "gpus"}.get(name, name)
        if name in takes and not eq:
            i += 1
            if i >= len(words):
                fail("option --%s needs a value" % name)
            val = words[i]
        opts[name] = val if (eq or name in takes) else True
        i += 1
    return []


def array_ids(spec):
    spec = spec.split("%")[0]  # a throttle (%N) changes nothing here
    ids = []
    for part in spec.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+)(?::(\d+))?)?", part)
        if not m:
            fail("invalid --array %r" % spec)
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        step = int(m.group(3)) if m.group(3) else 1
        ids.extend(range(lo, hi + 1, step))
    return sorted(set(ids))


def main():
    cli = {}
    rest = parse_opts(sys.argv[1:], cli)
    if not rest:
        fail("no batch script given")
    script, script_args = rest[0], rest[1:]
    text = open(script).read()
    opts = {}
    for line in text.splitlines()[1:]:
        if line.startswith("#SBATCH"):
            parse_opts(shlex.split(line[len("#SBATCH"):]), opts)
        elif line.strip() and not line.startswith("#"):
            break
    opts.update(cli)
    jid = jobs["next"]
    name = opts.get("job-name", os.path.basename(script))
    for dep in filter(None, opts.get("dependency", "").split(",")):
        kind, _, ids = dep.partition(":")
        for d in ids.split(":"):
            prior = jobs["jobs"].get(d)
            if prior is None:
                fail("Job dependency problem: no job %s" % d)
            if kind == "afterok" and prior["rc"] != 0:
                print(jid if opts.get("parsable") else "Submitted batch job %d" % jid)
                jobs["next"] = jid + 100
                jobs["jobs"][str(jid)] = {"rc": -1, "pending": "DependencyNeverSatisfied"}
                json.dump(jobs, open(jobs_file, "w"))
                return
    tasks = array_ids(opts["array"]) if "array" in opts else [None]
    env = dict(os.environ)
    export = opts.get("export", "ALL")
    if export.split(",")[0] == "NONE":
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME")}
    for kv in export.split(",")[1:]:
        k, _, v = kv.partition("=")
        env[k] = v
    procs = []
    for n, task in enumerate(tasks):
        e = dict(env, SLURM_JOB_ID=str(jid + n), SLURM_JOB_NAME=name, SLURM_SUBMIT_DIR=os.getcwd())
        pattern = opts.get("output", "slurm-%A_%a.out" if task is not None else "slurm-%j.out")
        if task is not None:
            e.update(SLURM_ARRAY_JOB_ID=str(jid), SLURM_ARRAY_TASK_ID=str(task),
                     SLURM_ARRAY_TASK_MIN=str(tasks[0]), SLURM_ARRAY_TASK_MAX=str(tasks[-1]),
                     SLURM_ARRAY_TASK_COUNT=str(len(tasks)),
                     SLURM_ARRAY_TASK_STEP=str(tasks[1] - tasks[0] if len(tasks) > 1 else 1))
        out = (pattern.replace("%x", name).replace("%A", str(jid)).replace("%j", str(jid + n))
               .replace("%a", str(task) if task is not None else ""))
        log = open(out, "w")  # like Slurm: the log's directory must exist
        shebang = text.splitlines()[0][2:].split() if text.startswith("#!") else ["/bin/sh"]
        procs.append(subprocess.Popen(shebang + [script] + script_args, env=e, stdout=log,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
    rc = max(p.wait() for p in procs)
    jobs["next"] = jid + 100
    jobs["jobs"][str(jid)] = {"rc": rc, "tasks": tasks, "name": name}
    json.dump(jobs, open(jobs_file, "w"))
    print(jid if opts.get("parsable") else "Submitted batch job %d" % jid)


main()
