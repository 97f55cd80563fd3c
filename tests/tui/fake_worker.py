#!/usr/bin/env python3
"""A scripted stand-in for `benchtop worker` (BENCHTOP_WORKER=this file): speaks the JSON-lines
protocol of bench/protocol.h and answers every run request with a plausible record, so the TUI's
live-run path can be tested on machines without a GPU. Test fixture only: its numbers are made
up and say so in the device name."""
import json, os, random, sys, time, zlib

# Fault drills for the runner's tests: the variant named in FAKE_CRASH makes the worker exit
# without an answer, the one in FAKE_HANG makes it stop answering (the watchdog's case).
CRASH, HANG = os.environ.get("FAKE_CRASH", ""), os.environ.get("FAKE_HANG", "")
# FAKE_SLOW=NAME: that variant's launches take FAKE_SLOW_S seconds each (longer than the
# watchdog), said as launch_ms after the first; FAKE_SLOW_HANG=1: then one never ends.
# FAKE_HANG_FIRST=NAME: its first launch never ends.
SLOW, SLOW_S = os.environ.get("FAKE_SLOW", ""), float(os.environ.get("FAKE_SLOW_S", "0"))
SLOW_HANG = os.environ.get("FAKE_SLOW_HANG", "") == "1"
HANG_FIRST = os.environ.get("FAKE_HANG_FIRST", "")
# FAKE_TUNE=1: the latency is a fixed function of the knobs (each k=v setting a factor from its
# hash), so a tune has a landscape to search with one best setting; FAKE_FAIL names a knob
# setting ("stages=3") whose records fail verification.
# ("*": every one); FAKE_DELAY=1 makes each record take half a second (to interrupt a run).
TUNE, FAIL = os.environ.get("FAKE_TUNE", "") == "1", os.environ.get("FAKE_FAIL", "")
PHASE_S = 0.12 if os.environ.get("FAKE_DELAY", "") == "1" else 0.02
# FAKE_KNOB_ORDER=reverse: each record writes its request's knobs in the reverse order and with
# numbers zero-padded ("stages=02,block_m=064"): the same setting in other words.
KNOB_ORDER = os.environ.get("FAKE_KNOB_ORDER", "")

def reworded(knobs):
    if KNOB_ORDER != "reverse" or not knobs:
        return knobs
    items = [kv.split("=", 1) for kv in knobs.split(",")]
    return ",".join("%s=%s" % (k, "0" + v if v.isdigit() else v) for k, v in reversed(items))

# FAKE_GRID=1 (with FAKE_TUNE): each k=v setting also has a factor per kind of problem (its head
# dimension, causal or not, and length S to within a factor of 4), so the best knobs move with
# the problem, and a record's samples are drawn from a generator seeded by its variant, knobs and
# problem: the same configuration measures the same p50 every time (tune --grid's resume test).
GRID = os.environ.get("FAKE_GRID", "") == "1"

def problem_kind(shape):
    parts = shape.split(":")
    dims = parts[0].split("x")
    s = int(dims[2].split("/")[0])
    return "D%s%s/S%d" % (dims[3], ":causal" if "causal" in parts else "", (s.bit_length() - 1) // 2)

def latency(knobs, shape=""):
    t = 5.0
    for kv in knobs.split(","):
        if kv:
            t *= 1.0 + 0.3 * (zlib.crc32(kv.encode()) % 1000) / 1000.0
            if GRID:
                t *= 1.0 + 0.3 * (zlib.crc32((kv + "|" + problem_kind(shape)).encode()) % 1000) / 1000.0
    return t

# FAKE_SOURCES=1: each record's source hash and path as the real worker makes them (FNV-1a over
# the .cu, then the shared headers: kernels/jit_source.c), the file found on the kernel path this
# worker inherits: VARIANT.cu in the user's folders (the last one wins), else the built-in from
# BENCHTOP_KERNEL_DIR or, as the embedded copy, the source tree's kernels/.
SOURCES = os.environ.get("FAKE_SOURCES", "") == "1"
TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernels")
HEADERS = ["attn_params.h", "common.cuh", "sm80.cuh", "hopper.cuh", "fa3_tile.cuh", "fa3_consumer.cuh",
           "mma_phases.cuh"]

def fnv(data, seed):
    h = 1469598103934665603 ^ seed
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h

def builtin(name):
    d = os.environ.get("BENCHTOP_KERNEL_DIR", "")
    if d and os.path.lexists(os.path.join(d, name)):
        return os.path.join(d, name)
    return os.path.join(TREE, name)

def source_of(variant):
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.environ.get("HOME", "/"), ".config")
    dirs = [os.path.join(config, "benchtop", "kernels")]
    for env in ("BENCHTOP_KERNEL_PATH", "BENCHTOP_EXTRA_KERNELS"):
        dirs += [d for d in os.environ.get(env, "").split(":") if d]
    path, shown = builtin(variant + ".cu"), variant + ".cu"
    for d in dirs:
        if os.path.isfile(os.path.join(d, variant + ".cu")):
            path = shown = os.path.join(d, variant + ".cu")
    h = fnv(open(path, "rb").read(), 0)
    for hdr in HEADERS:
        h = fnv(open(builtin(hdr), "rb").read(), h)
    return "%016x" % h, shown

def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()

# FAKE_DEVICE: the device name said in hello (tests of the tables shipped per chip).
device = {"name": os.environ.get("FAKE_DEVICE", "scripted test worker (no GPU)"), "cc_major": 9, "cc_minor": 0, "sm_count": 132,
          "l2_bytes": 62914560, "mem_bytes": 150000000000, "driver_version": 13000,
          "runtime_version": 13000, "nvrtc_major": 13, "nvrtc_minor": 0, "cupti_version": 130001,
          "peak_tflops": 650.0, "peak_gbs": 4000.0, "launch_us": 2.0}
# Several GPUs (--devices): FAKE_GPUS=N pretends the machine has N, BENCHTOP_DEVICE picks one
# (as the real worker does); FAKE_GPU_NAMES="A,A,B,B" gives them kinds. FAKE_CRASH_GPU=K: the
# worker on GPU K dies on every request (a GPU that keeps failing); FAKE_DIE_ONCE=PATH: the
# first worker on GPU 2 to run a request while PATH does not exist creates it and dies there;
# FAKE_HANG_ONCE=PATH the same on GPU 3, hanging instead (the watchdog's case).
ngpus = int(os.environ.get("FAKE_GPUS", "1"))
index = int(os.environ.get("BENCHTOP_DEVICE", "0"))
if index < 0 or index >= ngpus:
    send({"type": "nogpu", "message": "BENCHTOP_DEVICE=%d but this machine has %d CUDA device(s)" % (index, ngpus)})
    sys.exit(3)
names = os.environ.get("FAKE_GPU_NAMES", "")
if names:
    device["name"] = names.split(",")[index]
if "BENCHTOP_DEVICE" in os.environ:
    device["index"] = index
    device["uuid"] = "GPU-00000000-0000-0000-0000-%012d" % index
CRASH_GPU = os.environ.get("FAKE_CRASH_GPU", "")
DIE_ONCE = os.environ.get("FAKE_DIE_ONCE", "")
HANG_ONCE = os.environ.get("FAKE_HANG_ONCE", "")
hello = {"type": "hello", "device": device}
if ngpus > 1:
    hello["devices"] = ngpus
send(hello)
for line in sys.stdin:
    req = json.loads(line)
    if req.get("op") == "quit":
        break
    if req.get("op") == "ping":  # answered in order: every earlier request is done
        send({"type": "pong", "id": req["id"]})
        continue
    if req.get("op") == "build":
        time.sleep(0.05)
        send({"type": "built", "id": req["id"], "ok": True,
              "message": "compiled in 50 ms, 96 registers (scripted)"})
        continue
    if req.get("op") != "run":
        continue
    if CRASH_GPU and int(CRASH_GPU) == index:
        send({"type": "progress", "id": req["id"], "phase": "compiling"})
        sys.exit(1)
    if DIE_ONCE and index == 2 and not os.path.exists(DIE_ONCE):
        open(DIE_ONCE, "w").write("died\n")
        send({"type": "progress", "id": req["id"], "phase": "timing"})
        os.kill(os.getpid(), 9)
    if HANG_ONCE and index == 3 and not os.path.exists(HANG_ONCE):
        open(HANG_ONCE, "w").write("hung\n")
        send({"type": "progress", "id": req["id"], "phase": "timing"})
        time.sleep(3600)
    if req["variant"] == CRASH:
        send({"type": "progress", "id": req["id"], "phase": "verifying"})
        sys.exit(1)
    if req["variant"] == HANG:
        send({"type": "progress", "id": req["id"], "phase": "timing"})
        time.sleep(3600)
    if req["variant"] == HANG_FIRST:  # the first launch never ends
        send({"type": "progress", "id": req["id"], "phase": "verifying"})
        time.sleep(3600)
    if req["variant"] == SLOW:  # a slow, healthy kernel: each launch takes SLOW_S seconds
        send({"type": "progress", "id": req["id"], "phase": "verifying"})
        time.sleep(SLOW_S)
        for _ in range(2):
            send({"type": "progress", "id": req["id"], "phase": "timing", "launch_ms": SLOW_S * 1000})
            time.sleep(SLOW_S)
        if SLOW_HANG:  # then one launch never ends
            time.sleep(3600)
    for phase in ("compiling", "verifying", "timing", "profiling"):
        send({"type": "progress", "id": req["id"], "phase": phase})
        time.sleep(PHASE_S)
    if TUNE:
        base = latency(req["knobs"], req["shape"])
        draw = random.Random(zlib.crc32(("%s|%s|%s" % (req["variant"], req["knobs"], req["shape"])).encode())) if GRID else random
        samples = [base * draw.uniform(0.995, 1.005) for _ in range(100)]
    else:
        samples = [random.uniform(10, 12) for _ in range(100)]
    s = sorted(samples)
    heads = {"sm__warps_active.avg.pct_of_peak_sustained_active": ("%", 7.0),
             "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": ("%", 20.0),
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": ("conflicts", 12.0),
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": ("conflicts", 3.0),
             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": ("wavefronts", 5e5),
             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": ("wavefronts", 8e3),
             "sm__inst_executed_pipe_tensor_op_hmma.sum": ("inst", 262144.0),
             "gpu__time_duration.sum": ("ns", 9500.0),
             "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum": ("sectors", 9.0e4),
             "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum": ("sectors", 1.0e4),
             "derived__l2_tex_read_hit_rate.pct": ("%", 90.0),
             "lts__t_sector_hit_rate.pct": ("%", 99.0)}
    # The metrics asked for ("default", "none" or names, as in --metrics): the headline ones
    # with the values above, any other name with a made-up count (a user's own ncu metric).
    names = []
    for item in (req.get("metrics") or "default").split(","):
        item = item.strip()
        for n in (list(heads) if item == "default" else [] if item in ("", "none") else [item]):
            if n not in names:
                names.append(n)
    metrics = [{"name": n, "value": heads[n][1], "unit": heads[n][0], "reason": ""} if n in heads
               else {"name": n, "value": 1000.0 * (1 + sum(map(ord, n)) % 97), "unit": "", "reason": ""}
               for n in names]
    failing = FAIL == "*" or (FAIL and FAIL in req["knobs"].split(","))
    # A scripted per-kernel breakdown: split-KV style for mma, quantize + attention for fp8,
    # GEMM, softmax, GEMM for cublas; the kernels add up to p50 (the kernel clock counts their
    # busy time: the idle gaps between them are shown, not counted).
    p50 = s[50]
    parts = {"fp8": [("quantize_fp8", 0.15), ("attn_fwd", 0.80)],
             "mma": [("attn_fwd_split", 0.85), ("combine", 0.10)],
             "cublas": [("gemm_qk", 0.40), ("softmax", 0.15), ("gemm_pv", 0.40)],
             "cudnn": [("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16", 0.98)]}.get(req["variant"], [("attn_fwd", 0.98)])
    total = sum(f for _, f in parts)
    kernels = [{"name": n, "p50_us": p50 * f / total, "gap_before_us": None if i == 0 else p50 * 0.05 / (len(parts) - 1),
                "share": f / total, "launches": 100} for i, (n, f) in enumerate(parts)]
    if req.get("opts", {}).get("graph") and len(kernels) > 1:  # a graph of runs: the gap between runs
        kernels[0]["gap_before_us"] = p50 * 0.02
    rec = {"variant": req["variant"], "knobs": reworded(req["knobs"]), "shape": req["shape"],
           "status": "fail" if failing else "pass",
           "reason": "verification failed: rel L2 0.5 (scripted)" if failing else "",
           "options": req.get("opts", {}), "device": device,
           "timing": {"p50": s[50], "p90": s[90], "p99": s[99], "min": s[0], "mean": sum(s) / 100,
                      "stddev": 0.5, "tflops": 90.0, "peak_frac": 0.14, "nsamples": 100, "samples": samples},
           "build": {"regs": 136, "smem_static": 0, "smem_dynamic": 40960, "stack_bytes": 0,
                     "spill_stores": 0, "spill_loads": 0, "compile_ms": 250.0, "cache_hit": False,
                     "source_hash": "0123456789abcdef", "arch": "sm_90"},
           "clocks": {"sm_mhz_before": 1980, "sm_mhz_after": 1980, "mem_mhz_before": 3201,
                      "mem_mhz_after": 3201, "temp_c": 40, "power_w": 130.0, "throttle_reasons": 0},
           "error": {"checked": True, "max_abs": 1e-3, "rel_l2": 2.7e-4, "tolerance": 2e-3,
                     "nan_count": 0, "inf_count": 0, "unwritten": 0},
           "metrics": metrics, "metric_passes": 2 if metrics else -1, "kernels": kernels, "occupancy_theoretical": 12.5}
    if SOURCES:
        rec["build"]["source_hash"], rec["build"]["source_path"] = source_of(req["variant"])
    send({"type": "record", "id": req["id"], "record": rec})
