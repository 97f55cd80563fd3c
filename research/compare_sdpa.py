#!/usr/bin/env python3
"""benchtop against PyTorch SDPA, on the GPU machine, in one run, one protocol.

Times benchtop's variants through its own batch mode (`benchtop run ... --cold-l2`, median of
the timed launches, L2 flushed before each) and PyTorch SDPA's cuDNN, FlashAttention and
memory-efficient backends, fp16, on the same shapes, by two clocks, each the same on both sides:

- kernel time (what benchtop's p50 is): CUPTI kernel timestamps. benchtop: its default clock,
  the busy time of a launch's kernels, in blocks after pauses where launches would keep the GPU
  busy for 2 ms or more; SDPA is timed in the same blocks (block_plan). SDPA:
  torch.profiler (Kineto, which reads the same CUPTI activity records), an L2 flush kernel
  before every call, the summed durations of each call's kernels and memsets (a cuDNN call
  waits on the host between its memset and its kernel, so its span is not GPU time).
- events: CUDA events around each call (launch latency included). benchtop: the event_p50 kept
  in the same records. SDPA: triton.testing.do_bench (flushes L2 before each rep,
  return_mode="median").
- ncu (the independent instrument, and the one the targets are judged by): Nsight Compute's
  gpu__time_duration.sum, --cache-control all --clock-control none, median over 10 launches per
  kernel, summed over the kernels of one call (benchtop's fastest knobs by kernel time, replayed
  under ncu; SDPA through research/sdpa_calls.py). Kernels are serialised under ncu, so overlap
  tricks (programmatic dependent launch) cannot shift a start timestamp.

Prints a Markdown report (device, date, clocks, a table per clock with ratios = SDPA time /
benchtop time, every target met or not met by each clock) on stdout and writes everything as
JSON to the file given with --json.

For each (variant, shape) benchtop runs a small knob sweep and the fastest record that passed
verification stands for the variant (SDPA picks its own kernels too); its knobs are shown.

Usage (repo root, GPU machine):
  python3 research/compare_sdpa.py --benchtop build-gpu/benchtop --json compare.json
"""
import argparse
import datetime
import itertools
import json
import os
import subprocess
import sys
import statistics
import tempfile

SHAPES = ["2x8x512x64", "2x8x512x64:causal", "4x16x2048x128", "4x16x2048x128:causal",
          "8x16x4096x64"]
SMALL = {"2x8x512x64", "2x8x512x64:causal"}
BACKENDS = ["cudnn", "flash", "efficient"]
# Knob sweeps per variant: `--knob k=v1,v2` lists handed to benchtop (one run per variant).
# Small shapes get a wide sweep (every combination check_mma accepts is run; the rest are
# refused before launch); large ones the combinations that fit D=128 well.
SWEEPS = {
    "mma": {"small": ["block_m=32,64,128", "warps=2,4,8", "block_n=32,64,128", "stages=2,3",
                      "split=1,auto,2"],
            "large": ["block_m=32,64,128", "warps=2,4,8", "block_n=32,64", "stages=2", "split=auto,1,2"]},
    # fa3: 64-row blocks (keys split or not) for the small grids; 2-3 ping-ponging warpgroups,
    # persistent or not, for the large ones (refused combinations are n/a before launch).
    # (stages=4 never won a small shape; exp_poly only helps two warpgroups on one MUFU pipe.)
    "fa3": {"small": ["block_m=64", "block_n=128,64", "stages=2", "kv_split=1,2", "sched=plain,pingpong,exp",
                      "persist=0", "exp_poly=0,8"],
            "large": ["block_m=128,192", "block_n=128", "stages=2,3", "kv_split=1", "sched=pingpong",
                      "persist=1,0"]},
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_shape(text):
    return sdpa_problems.parse(text)


def flops(text):
    return sdpa_problems.flops(text)


def device_facts():
    facts = {"date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")}
    query = "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + query, "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        line = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""
        facts["nvidia_smi"] = dict(zip(query.split(","), [x.strip() for x in line.split(",")])) if line else None
        if not line:
            facts["nvidia_smi_error"] = (out.stderr.strip() or "no output")[:200]
    except (OSError, subprocess.TimeoutExpired) as ex:
        facts["nvidia_smi"] = None
        facts["nvidia_smi_error"] = str(ex)[:200]
    return facts


def known_variants(benchtop):
    out = subprocess.run([benchtop, "list", "variants"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise SystemExit("compare_sdpa: `%s list variants` failed (exit %d): %s"
                         % (benchtop, out.returncode, out.stderr.strip()[:300]))
    return {line.split()[0] for line in out.stdout.splitlines() if line and not line[0].isspace()}


def run_benchtop(benchtop, variant, shapes, reps, timeout, sweep):
    """One `benchtop run` for a variant over the shapes; returns its session's records."""
    with tempfile.TemporaryDirectory(prefix="compare_sdpa_") as tmp:
        session = os.path.join(tmp, "session.json")
        cmd = [benchtop, "run", "-v", variant, "-s", ",".join(shapes), "--cold-l2",
               "--metrics", "none", "--reps", str(reps), "--format", "json", "-o", session]
        for k in sweep:
            cmd += ["--knob", k]
        log("compare_sdpa: " + " ".join(cmd))
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return [], "timed out after %d s" % timeout, cmd
        note = None if out.returncode == 0 else "exit %d: %s" % (out.returncode, out.stderr.strip()[-300:])
        try:
            with open(session) as f:
                return json.load(f).get("records", []), note, cmd
        except (OSError, ValueError) as ex:
            return [], (note or "") + " (no session: %s)" % ex, cmd


from ncu_clock import find_ncu, ncu_benchtop, ncu_sdpa  # noqa: E402 (research/ on sys.path)
import sdpa_problems  # noqa: E402


def top_records(records, variant, shape, k):
    """The k fastest passing records of (variant, shape) by kernel time, plus the fastest
    persistent one (knob persist=1) when it is not among them, as best_records' dicts: kernel
    timestamps read persistent grids 0-25 us long, so ranking by them alone can keep the
    persistent setting away from the ncu verdict (it did once at 4x16x2048x128)."""
    rs = [r for r in records if r.get("variant") == variant and r.get("shape") == shape
          and r.get("status") == "pass" and (r.get("timing") or {}).get("source") == "kernel"]
    rs.sort(key=lambda r: r["timing"]["p50"])
    pick = rs[:k]
    persistent = [r for r in rs if "persist=1" in (r.get("knobs") or "").split(",")]
    if persistent and persistent[0] not in pick:
        pick.append(persistent[0])
    return [best_records([r])[0][(variant, shape)] for r in pick]


def best_records(records, field="p50"):
    """Fastest passing record per (variant, shape) by timing[field], plus what did not pass."""
    best, other = {}, {}
    for r in records:
        key = (r.get("variant"), r.get("shape"))
        p50 = (r.get("timing") or {}).get(field)
        if field == "p50" and (r.get("timing") or {}).get("source") != "kernel":
            p50 = None  # not kernel time: this record cannot stand in the kernel-time table
        if r.get("status") == "pass" and isinstance(p50, (int, float)):
            if key not in best or p50 < best[key]["p50_us"]:
                best[key] = {"p50_us": p50, "p90_us": (r.get("timing") or {}).get("p90"),
                             "knobs": r.get("knobs", ""), "rel_l2": (r.get("error") or {}).get("rel_l2"),
                             "regs": (r.get("build") or {}).get("regs"), "clocks": r.get("clocks")}
        elif r.get("status") != "n/a":
            other.setdefault(key, []).append("%s %s: %s" % (r.get("knobs", ""), r.get("status"),
                                                           (r.get("reason") or "")[:160]))
    return best, other


def kernel_busy_us(activities, kernels_only=False):
    """Per call: the summed durations of its kernels and memsets, the calls cut at each flush
    kernel (the first activity is one). Not first start to last end: cuDNN's calls run a
    memset, then the kernel after a host-side gap of 10-15 us at the small shapes (on an
    H200), which is not GPU work. kernels_only: leave the memsets out (the attention kernel's
    own time, as benchtop's cudnn rung times it: it launches no memset). activities:
    (start_ns, duration_ns, name), sorted."""
    flush_name = activities[0][2]
    calls, cur = [], None
    for _, dur, name in activities:
        if name == flush_name:
            if cur is not None:
                calls.append(cur / 1000.0)
            cur = None
        elif kernels_only and name.lower().startswith("memset"):
            cur = cur or 0
        else:
            cur = (cur or 0) + dur
    if cur is not None:
        calls.append(cur / 1000.0)
    return calls


def torch_device_cuda():
    from torch.autograd import DeviceType
    return DeviceType.CUDA


# benchtop's timing protocol (bench/worker/measure_time.c): launches that would keep the GPU busy
# back to back for this long are timed in eight blocks, the first after 200 ms of idle and the
# others after 30 ms, each block opened by about 2 ms of untimed launches; sustained load puts
# an H100 in a slower state that the pauses avoid (docs/statistics.md), so both sides must
# follow the same protocol for their times to compare.
PAUSE_BUSY_MS, PAUSE_LAUNCH_MS, BLOCKS, FIRST_PAUSE_S, PAUSE_S, BLOCK_WARM_MS = 2.0, 5.0, 8, 0.2, 0.03, 2.0


def block_plan(reps, launch_ms):
    """(pause seconds, untimed launches, timed launches) per block, as benchtop times them."""
    if not (launch_ms < PAUSE_LAUNCH_MS and reps * launch_ms >= PAUSE_BUSY_MS):
        return [(0.0, 0, reps)]
    warm = max(1, int(BLOCK_WARM_MS / max(launch_ms, 1e-3)))
    sizes = [reps // BLOCKS + (1 if i < reps % BLOCKS else 0) for i in range(BLOCKS)]
    return [(FIRST_PAUSE_S if i == 0 else PAUSE_S, warm, n) for i, n in enumerate(sizes) if n]


def kernel_time(fn, flush, reps=100, warmup=20, kernels_only=False):
    """Median GPU busy time of fn() by CUPTI timestamps (torch.profiler), L2 flushed before each,
    in benchtop's blocks after pauses where benchtop would pause."""
    import statistics
    import time
    import torch
    from torch.profiler import ProfilerActivity, profile
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(5):
        flush.fill_(1)
        fn()
    torch.cuda.synchronize()
    plan = block_plan(reps, (time.perf_counter() - t0) * 1e3 / 5)
    timed, n = [], 0
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for pause, warm, count in plan:
            if pause:
                torch.cuda.synchronize()
                time.sleep(pause)
            for i in range(warm + count):
                flush.fill_(1)
                fn()
                if i >= warm:
                    timed.append(n)
                n += 1
        torch.cuda.synchronize()
    activities = sorted((e.start_ns(), e.duration_ns(), e.name())
                        for e in prof.profiler.kineto_results.events()
                        if e.device_type() == torch_device_cuda())
    if not activities:
        raise RuntimeError("torch.profiler recorded no kernels")
    if os.environ.get("COMPARE_SDPA_NAMES"):  # what one call runs, for the record
        log("compare_sdpa: one call: %s" % sorted(set("%s %.2f us" % (n[:60], d / 1000.0) for _, d, n in activities[:8])))
    busy = kernel_busy_us(activities, kernels_only)
    if len(busy) != n:
        raise RuntimeError("kernel timestamps for %d of %d calls" % (len(busy), n))
    return statistics.median(busy[i] for i in timed)


def time_sdpa(shapes):
    import torch
    import torch.nn.functional as F
    import triton.testing as tt
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION}
    results = {}
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")  # twice the L2, as benchtop
    for shape in shapes:
        p = parse_shape(shape)
        gen = torch.Generator(device="cuda").manual_seed(1)
        q, k, v = sdpa_problems.inputs(p, torch, gen)
        kw = sdpa_problems.sdpa_kwargs(p)
        with sdpa_kernel(SDPBackend.MATH):  # fp32 reference, one batch element at a time
            ref = torch.cat([F.scaled_dot_product_attention(q[i:i + 1].float(), k[i:i + 1].float(),
                                                            v[i:i + 1].float(), **kw)
                             for i in range(p.b)])
        for name in BACKENDS:
            try:
                with sdpa_kernel(backends[name]):
                    fn = lambda: F.scaled_dot_product_attention(q, k, v, **kw)
                    o = fn()
                    torch.cuda.synchronize()
                    err = ((o.float() - ref).norm() / ref.norm()).item()
                    ms = tt.do_bench(fn, warmup=50, rep=200, return_mode="median")
                    kus = kernel_time(fn, flush)
                    kern = kernel_time(fn, flush, kernels_only=True)
                results[(name, shape)] = {"p50_us": kus, "kernel_p50_us": kern, "event_p50_us": ms * 1000.0,
                                          "rel_l2": err}
            except Exception as ex:  # a backend that refuses a shape is a result, not a crash
                results[(name, shape)] = {"error": str(ex).splitlines()[0][:200] if str(ex) else repr(ex)}
            log("compare_sdpa: sdpa %-9s %-22s %s" % (name, shape, results[(name, shape)]))
        del q, k, v, ref
        torch.cuda.empty_cache()
    return results


def ratio(sdpa, ours):
    if not sdpa or not ours or "p50_us" not in sdpa or "p50_us" not in ours:
        return None
    return sdpa["p50_us"] / ours["p50_us"]


def fmt_us(x):
    return "-" if x is None else ("%.1f" % x if x >= 100 else "%.2f" % x)


def fmt_ratio(x):
    return "-" if x is None else "%.2fx" % x


def targets(shapes, best, sdpa, variants):
    """The comparison's targets, each with its numbers and met / not met / not measured."""
    out = []

    def add(name, value, goal, met_if):
        state = "not measured" if value is None else ("met" if met_if(value) else "not met")
        out.append({"target": name, "value": value, "goal": goal, "state": state})

    for shape in shapes:
        if shape in SMALL:
            fastest = None
            for v in variants:
                r = best.get((v, shape))
                if r and (fastest is None or r["p50_us"] < fastest[1]["p50_us"]):
                    fastest = (v, r)
            cud = sdpa.get(("cudnn", shape))
            add("%s: fastest benchtop variant (%s) >= 1.0x cuDNN" % (shape, fastest[0] if fastest else "-"),
                ratio(cud, fastest[1] if fastest else None), ">= 1.00x", lambda x: x >= 1.0)
            add("%s: p50 <= 5 us" % shape, fastest[1]["p50_us"] if fastest else None, "<= 5 us",
                lambda x: x <= 5.0)
        else:
            if "mma" in variants:
                add("%s: mma >= 1.0x FlashAttention backend" % shape,
                    ratio(sdpa.get(("flash", shape)), best.get(("mma", shape))), ">= 1.00x",
                    lambda x: x >= 1.0)
            if "fa3" in variants:
                add("%s: fa3 >= 1.0x cuDNN" % shape,
                    ratio(sdpa.get(("cudnn", shape)), best.get(("fa3", shape))), ">= 1.00x",
                    lambda x: x >= 1.0)
    return out


PROTOCOLS = [
    ("ncu", "Nsight Compute gpu__time_duration.sum on both sides (--cache-control all, median of "
            "10+ launches per kernel, summed over a call's kernels): the independent instrument"),
    ("kernel", "kernel time (CUPTI kernel timestamps on both sides: benchtop's p50; SDPA through "
               "torch.profiler, summed kernel and memset durations per call, 20 warm-up calls "
               "then 100 timed)"),
    ("events", "CUDA events around each call (benchtop: event_p50 of the same records; SDPA: "
               "triton.testing.do_bench warmup=50 rep=200 return_mode=median)"),
]


def sdpa_view(sdpa, proto):
    """SDPA results with p50_us taken from the given clock."""
    out = {}
    for k, r in sdpa.items():
        if "error" in r:
            out[k] = r
        else:
            v = r.get({"kernel": "p50_us", "events": "event_p50_us", "ncu": "ncu_p50_us"}[proto])
            out[k] = {"p50_us": v, "rel_l2": r.get("rel_l2")} if v is not None else {"error": "not timed"}
    return out


def table(shapes, variants, best, sdpa):
    lines = []
    head = ["shape"] + ["%s us" % v for v in variants] + ["%s us" % b for b in BACKENDS]
    head += ["%s vs %s" % (v, b) for v in variants for b in BACKENDS]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + " --- |" * len(head))
    for shape in shapes:
        row = [shape]
        row += [fmt_us(best[(v, shape)]["p50_us"]) if (v, shape) in best else "-" for v in variants]
        row += [fmt_us(sdpa[(b, shape)].get("p50_us")) if (b, shape) in sdpa else "-" for b in BACKENDS]
        row += [fmt_ratio(ratio(sdpa.get((b, shape)), best.get((v, shape)))) for v in variants for b in BACKENDS]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def report(facts, shapes, variants, bests, other, sdpas, tgs, notes):
    lines = ["# benchtop vs PyTorch SDPA", ""]
    smi = facts.get("nvidia_smi") or {}
    lines.append("- date: %s" % facts["date_utc"])
    lines.append("- device: %s, driver %s" % (smi.get("name", "?"), smi.get("driver_version", "?")))
    lines.append("- clocks (nvidia-smi, before / after): SM %s / %s, memory %s / %s (max SM %s, max memory %s)"
                 % (smi.get("clocks.sm", "?"), (facts.get("nvidia_smi_after") or {}).get("clocks.sm", "?"),
                    smi.get("clocks.mem", "?"), (facts.get("nvidia_smi_after") or {}).get("clocks.mem", "?"),
                    smi.get("clocks.max.sm", "?"), smi.get("clocks.max.mem", "?")))
    lines.append("- torch %s, triton %s" % (facts.get("torch", "?"), facts.get("triton", "?")))
    lines.append("- protocol: fp16, L2 flushed (a write to twice the L2) before every timed call, median; "
                 "benchtop `run --cold-l2`; two clocks, each the same on both sides (below)")
    lines.append("- ratio = SDPA time / benchtop time (> 1: benchtop faster)")
    for proto, desc in PROTOCOLS:
        lines += ["", "## By %s" % desc, ""]
        lines += table(shapes, variants, bests[proto], sdpas[proto])
    lines += ["", "Knobs of the fastest passing benchtop record by kernel time (and its TFLOP/s at that time):", ""]
    for shape, v in itertools.product(shapes, variants):
        r = bests["kernel"].get((v, shape))
        if r:
            lines.append("- %s %s: %s (%.0f TFLOP/s, rel L2 %.2g, %s regs)"
                         % (v, shape, r["knobs"] or "-", flops(shape) / (r["p50_us"] * 1e-6) / 1e12,
                            r["rel_l2"] if r["rel_l2"] is not None else float("nan"), r["regs"]))
        for o in other.get((v, shape), [])[:4]:
            lines.append("  - not passed: %s" % o)
    if bests.get("ncu"):
        lines += ["", "Under ncu (the verdict's clock), the knobs timed and each kernel's median:", ""]
        for shape, v in itertools.product(shapes, variants):
            r = bests["ncu"].get((v, shape))
            if r:
                lines.append("- %s %s: %s: %.2f us (%s)" % (v, shape, r["knobs"] or "-", r["p50_us"], ", ".join(
                    "%s %.2f us x%d" % (k.split("(")[0][:40], m, n) for k, (m, n) in r.get("ncu_kernels", {}).items())))
    errs = [(k, r["error"]) for k, r in sdpas["kernel"].items() if "error" in r]
    for (b, shape), e in errs:
        lines.append("- SDPA %s %s: %s" % (b, shape, e))
    lines += ["", "| target | goal | ncu | state | kernel time | state | events | state |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]

    def val(t):
        v = t["value"]
        return "-" if v is None else (("%.2fx" % v) if "x" in t["goal"] else ("%.2f us" % v))
    for tn, tk, te in zip(tgs["ncu"], tgs["kernel"], tgs["events"]):
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            tn["target"], tn["goal"], val(tn), tn["state"], val(tk), tk["state"], val(te), te["state"]))
    lines.append("")
    for proto, _ in PROTOCOLS:
        met = [t["target"] for t in tgs[proto] if t["state"] == "met"]
        lines.append("Met by %s: %d of %d targets%s." % (proto, len(met), len(tgs[proto]),
                                                       " (the verdict)" if proto == "ncu" else ""))
    for n in notes:
        lines.append("- note: %s" % n)
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--benchtop", required=True, help="path of the benchtop binary")
    ap.add_argument("--json", required=True, help="where to write the results as JSON")
    ap.add_argument("--variants", default="mma,fa3", help="benchtop variants (default mma,fa3)")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="BxHxSxD[:causal],...")
    ap.add_argument("--reps", type=int, default=100, help="benchtop timed launches per record")
    ap.add_argument("--timeout", type=int, default=900, help="seconds allowed per benchtop run")
    ap.add_argument("--skip-sdpa", action="store_true", help="time benchtop only")
    ap.add_argument("--skip-ncu", action="store_true", help="no Nsight Compute clock")
    a = ap.parse_args()
    if not os.access(a.benchtop, os.X_OK):
        raise SystemExit("compare_sdpa: %s is not an executable benchtop binary" % a.benchtop)
    shapes = [s for s in a.shapes.split(",") if s]
    for s in shapes:
        try:
            parse_shape(s)
        except ValueError:
            raise SystemExit("compare_sdpa: bad shape '%s' (expected B x Hq[/Hkv] x Sq[/Skv] x D"
                             "[:causal][:bf16])" % s)
    notes = []
    have = known_variants(a.benchtop)
    variants = []
    for v in a.variants.split(","):
        if v in have:
            variants.append(v)
        elif v:
            notes.append("variant %s is not in this benchtop build: skipped" % v)
    facts = device_facts()
    try:
        import torch
        import triton
        facts["torch"], facts["triton"] = torch.__version__, triton.__version__
    except ImportError as ex:
        if not a.skip_sdpa:
            raise SystemExit("compare_sdpa: PyTorch with Triton is needed for the SDPA side (%s)" % ex)

    records, runs = [], []
    for v in variants:
        for group in ("small", "large"):
            part = [s for s in shapes if (s in SMALL) == (group == "small")]
            if not part:
                continue
            recs, note, cmd = run_benchtop(a.benchtop, v, part, a.reps, a.timeout,
                                           SWEEPS.get(v, {}).get(group, []))
            records += recs
            runs.append({"variant": v, "command": cmd, "note": note, "records": len(recs)})
            if note:
                notes.append("benchtop %s: %s" % (v, note))
    bests, other = {}, {}
    for proto, field in (("kernel", "p50"), ("events", "event_p50")):
        bests[proto], o = best_records(records, field)
        if proto == "kernel":
            other = o
    sdpa = {} if a.skip_sdpa else time_sdpa(shapes)
    # The independent clock: the fastest knobs by kernel time, and every SDPA backend, under ncu.
    ncu = None if a.skip_ncu else find_ncu()
    bests["ncu"] = {}
    if ncu:
        for (v, shape), r in bests["kernel"].items():
            # The fastest knob settings by kernel time go under ncu, three for small shapes, two
            # for large ones, and the fastest persistent one: the two clocks can rank persistent
            # grids differently (persistent kernels, cuDNN's too, have read 0-25 us longer by
            # kernel timestamps, varying by call).
            for cand in top_records(records, v, shape, 3 if shape in SMALL else 2):
                t = ncu_benchtop(ncu, a.benchtop, v, shape, cand["knobs"])
                log("compare_sdpa: ncu %s %s %s: %s" % (v, shape, cand["knobs"], t))
                if "p50_us" not in t:
                    notes.append("ncu %s %s %s: %s" % (v, shape, cand["knobs"], t["error"]))
                elif (v, shape) not in bests["ncu"] or t["p50_us"] < bests["ncu"][(v, shape)]["p50_us"]:
                    bests["ncu"][(v, shape)] = dict(cand, p50_us=t["p50_us"], ncu_kernels=t["kernels"])
        for (b, shape), r in sdpa.items():
            if "error" in r:
                continue
            t = ncu_sdpa(ncu, b, shape)
            log("compare_sdpa: ncu %s %s: %s" % (b, shape, t))
            if "p50_us" in t:
                r["ncu_p50_us"], r["ncu_kernels"] = t["p50_us"], t["kernels"]
            else:
                notes.append("ncu SDPA %s %s: %s" % (b, shape, t["error"]))
    else:
        notes.append("ncu not found (or --skip-ncu): the ncu table is empty")
    facts["nvidia_smi_after"] = device_facts().get("nvidia_smi")
    sdpas = {proto: sdpa_view(sdpa, proto) for proto, _ in PROTOCOLS}
    tgs = {proto: targets(shapes, bests[proto], sdpas[proto], variants) for proto, _ in PROTOCOLS}
    print(report(facts, shapes, variants, bests, other, sdpas, tgs, notes))
    out = {"facts": facts, "shapes": shapes, "variants": variants, "benchtop_runs": runs,
           "benchtop_best": {proto: [dict(variant=k[0], shape=k[1], **r) for k, r in b.items()]
                             for proto, b in bests.items()},
           "benchtop_records": records,
           "sdpa": [dict(backend=k[0], shape=k[1], **r) for k, r in sdpa.items()],
           "targets": tgs, "notes": notes}
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)
    print("\n(JSON: %s)" % a.json)


if __name__ == "__main__":
    main()
