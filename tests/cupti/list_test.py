#!/usr/bin/env python3
"""Unit: `benchtop list ...` from the outside (exit codes, one-line errors, real metric names).
Usage: list_test.py BENCHTOP CASE. Runs without a GPU; on a GPU machine the no-GPU case checks
the GPU listing instead."""
import subprocess
import sys


def run(*args):
    p = subprocess.run([BT, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def expect(cond, msg):
    if not cond:
        fail(msg)


BT, CASE = sys.argv[1], sys.argv[2]
TENSOR = {
    "AD104": ["sm__inst_executed_pipe_tensor_op_hmma", "sm__inst_executed_pipe_tensor_op_hmma_v2",
              "sm__pipe_tensor_op_hmma_cycles_active"],
    "GH100": ["sm__inst_executed_pipe_tensor_op_hmma", "sm__pipe_tensor_op_hmma_cycles_active"],
}

if CASE in TENSOR:
    rc, out, err = run("list", "metrics", "tensor", "--chip", CASE)
    expect(rc == 0, f"rc={rc} stderr={err!r}")
    names = {line.split()[0] for line in out.splitlines() if line and not line.startswith("#")}
    for want in TENSOR[CASE]:
        expect(want in names, f"{want} missing from the {CASE} tensor list")
    expect(all("tensor" in n for n in names), "a listed name lacks the substring")
    lines = [l for l in out.splitlines() if l.startswith("sm__inst_executed_pipe_tensor_op_hmma ")]
    expect(lines and "instruction" in lines[0] and "counter" in lines[0], f"unit/kind: {lines}")
    if CASE == "AD104":
        expect("DEPRECATED" in lines[0], "AD104 marks the old tensor name deprecated")
    print(f"ok: {len(names)} tensor metrics on {CASE}")
elif CASE == "unknown-chip":
    rc, out, err = run("list", "metrics", "tensor", "--chip", "NOTACHIP")
    expect(rc != 0, "unknown chip accepted")
    expect(len(err.strip().splitlines()) == 1, f"not one line: {err!r}")
    expect("unknown chip 'NOTACHIP'" in err and "GH100" in err, err)
    print("ok:", err.strip()[:100])
elif CASE == "aliases":
    # --chip takes what people call their GPU and compute capabilities: the L4's list is AD104's.
    def listing(chip):
        rc, out, err = run("list", "metrics", "--chip", chip)
        expect(rc == 0, f"--chip {chip!r}: rc={rc} err={err!r}")
        lines = out.splitlines()
        return lines[0], lines[1:]
    head, ad104 = listing("AD104")
    expect(len(ad104) > 1000, f"AD104 lists {len(ad104)} lines")
    for name in ("L4", "l4", "NVIDIA L4", "RTX 4070 Ti"):
        head, body = listing(name)
        expect(head.startswith("# AD104 metrics (") and " is AD104)" in head, f"{name}: {head!r}")
        expect(body == ad104, f"{name}: not AD104's list")
    for name, chip in (("L40S", "AD102"), ("RTX 4090", "AD102"), ("NVIDIA GeForce RTX 4090", "AD102"),
                       ("A100", "GA100"), ("A10G", "GA102"), ("H100", "GH100"), ("H200", "GH100"),
                       ("NVIDIA H100 80GB HBM3", "GH100"), ("sm_89", "AD102"), ("8.9", "AD102"),
                       ("sm_80", "GA100"), ("sm_86", "GA102"), ("sm_90", "GH100"), ("sm_90a", "GH100")):
        head, _ = listing(name)
        expect(head.startswith(f"# {chip} metrics ("), f"{name}: {head!r}")
    rc, out, err = run("list", "metrics", "--chip", "sm_61")
    expect(rc == 2 and len(err.strip().splitlines()) == 1 and "L4" in err and "sm_89" in err,
           f"sm_61: rc={rc} err={err!r}")
    print("ok: GPU names and compute capabilities map to their chips")
elif CASE == "no-match":
    rc, out, err = run("list", "metrics", "zzzz_no_such_metric", "--chip", "GH100")
    expect(rc == 1 and len(err.strip().splitlines()) == 1, f"rc={rc} err={err!r}")
    print("ok:", err.strip())
elif CASE == "no-gpu":
    rc, out, err = run("list", "metrics", "hit_rate")
    if rc == 0:  # a GPU machine: the GPU's own list
        expect("lts__t_sector_hit_rate" in out, "GPU list lacks lts__t_sector_hit_rate")
        print("ok: GPU present, listed its metrics")
    else:
        expect(rc == 3, f"rc={rc}, want 3 (no GPU)")
        expect(len(err.strip().splitlines()) == 1 and "--chip" in err, f"err={err!r}")
        print("ok:", err.strip())
elif CASE == "usage":
    for args in (["list"], ["list", "bogus"], ["list", "metrics", "--chip"],
                 ["list", "metrics", "--frobnicate"], ["list", "variants", "one", "two"],
                 ["list", "shapes", "--chip", "GH100"]):
        rc, out, err = run(*args)
        expect(rc == 2 and len(err.strip().splitlines()) == 1, f"{args}: rc={rc} err={err!r}")
    rc, out, err = run("list", "variants", "zzzz")
    expect(rc == 1 and out == "" and len(err.strip().splitlines()) == 1, f"no match: rc={rc} err={err!r}")
    print("ok: usage errors")
elif CASE == "variants":
    rc, out, err = run("list", "variants")
    expect(rc == 0 and err == "", f"rc={rc} err={err!r}")
    for want in ("naive", "mma", "head dims:", "min compute capability", "tolerance", "knob ",
                 "(default "):
        expect(want in out, f"'{want}' missing")
    rc, out, err = run("list", "shapes")
    expect(rc == 0 and "2x8x512x64:causal" in out and "GFLOP" in out, f"shapes: {out!r}")
    rc, out, err = run("list", "variants", "cp_", "--names")
    expect(rc == 0 and out.split() == ["cp_async"], f"variants cp_ --names: {out!r}")
    print("ok: variants and shapes")
else:
    fail(f"unknown case {CASE}")
