"""Nsight Compute as a clock: gpu__time_duration.sum of every kernel of a command, per kernel
name, from ncu's CSV (research/compare_sdpa.py's verdict clock; research/ncu_summary.py prints it)."""
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

NCU_SCALE = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
BENCHTOP_UTIL = ("fill", "poison", "flush", "reference")  # benchtop's own kernels, not the variant's


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def durations_us(csv_text, metric="gpu__time_duration.sum"):
    """{kernel name: [us, ...]} in launch order, from `ncu --csv` output (other lines skipped)."""
    rows = list(csv.reader(l for l in csv_text.splitlines() if l.startswith('"')))
    if not rows:
        return {}
    h = rows[0]
    ki, mi, ui, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Unit"), h.index("Metric Value")
    by = {}
    for r in rows[1:]:
        if r[mi] == metric:
            by.setdefault(r[ki], []).append(float(r[vi].replace(",", "")) * NCU_SCALE[r[ui]])
    return by


def find_ncu():
    return shutil.which("ncu") or next((p for p in ("/usr/local/cuda/bin/ncu",) if os.access(p, os.X_OK)), None)


def ncu_time(ncu, cmd, skip_names, launches, timeout=300):
    """Median gpu__time_duration per kernel name under ncu, summed over the names (us)."""
    full = [ncu, "--metrics", "gpu__time_duration.sum", "--cache-control", "all", "--clock-control",
            "none", "--csv", "--launch-skip", "10", "--launch-count", str(launches)] + cmd
    log("compare_sdpa: " + " ".join(full))
    try:
        out = subprocess.run(full, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "ncu timed out after %d s" % timeout}
    every = durations_us(out.stdout)
    if not every:
        return {"error": "ncu gave no rows (exit %d): %s" % (out.returncode, out.stderr.strip()[-200:])}
    by = {k: v for k, v in every.items() if not any(x in k.lower() for x in skip_names)}
    if not by:
        return {"error": "ncu profiled none of the call's kernels"}
    return {"p50_us": sum(statistics.median(v) for v in by.values()),
            "kernels": {k[:80]: [statistics.median(v), len(v)] for k, v in by.items()}}


def ncu_benchtop(ncu, benchtop, variant, shape, knobs):
    cmd = [benchtop, "run", "-v", variant, "-s", shape, "--cold-l2", "--metrics", "none",
           "--timing", "events", "--reps", "30", "--warmup", "0", "-o", os.devnull + ".json"]
    for kv in (knobs.split(",") if knobs else []):
        cmd += ["--knob", kv]
    with tempfile.TemporaryDirectory(prefix="compare_sdpa_ncu_") as tmp:
        cmd[cmd.index(os.devnull + ".json")] = os.path.join(tmp, "s.json")
        # 40 kernels after the first 10 (verification, warm-up): 10+ launches of any variant.
        return ncu_time(ncu, cmd, BENCHTOP_UTIL, 40)


def ncu_sdpa(ncu, backend, shape):
    cmd = ["python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdpa_calls.py"),
           backend, shape, "40"]
    return ncu_time(ncu, cmd, ("fillfunctor", "elementwise"), 40)
