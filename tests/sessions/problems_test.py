#!/usr/bin/env python3
"""The wider problem through show and diff: a decode record (8x32/8x1/8192x128:bf16) shows its
whole shape uncut, GB/s (bytes / p50: Q and O per query head, K and V once per KV head) and the
bound "memory" against the copy ceiling; a GQA causal bf16 record keeps ':bf16' in the table's
compact ':c' form (show and diff); a session of today's problems shows neither column.

    problems_test.py BENCHTOP EXAMPLE_SESSION
"""
import csv, io, json, os, shutil, subprocess, sys, tempfile


def main(argv):
    exe, example = os.path.abspath(argv[1]), argv[2]
    tmp = tempfile.mkdtemp()
    bad = 0

    def check(what, ok, detail=""):
        nonlocal bad
        print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + detail[:1500]))
        bad += not ok

    def run(*args):
        p = subprocess.run([exe, *args], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    s = json.load(open(example))
    rc, plain, _ = run("show", example)
    check("today's session: no GB/s or bound column", rc == 0 and "GB/s" not in plain and
          " bound" not in plain.splitlines()[1], plain)

    s["device"]["peak_gbs"] = 3000.0
    s["device"]["launch_us"] = 2.0
    passing = [r for r in s["records"] if r.get("status") == "pass"]
    dec, gqa = passing[0], passing[1]
    dec["shape"], dec["timing"]["p50"] = "8x32/8x1/8192x128:bf16", 100.0
    gqa["shape"] = "4x32/8x2048x128:causal:bf16"
    s["records"] = [dec, gqa]
    path = os.path.join(tmp, "decode.json")
    json.dump(s, open(path, "w"), indent=1)

    # 2 * (Q + O: 2*8*32*1*128, K + V: 2*8*8*8192*128) bytes over 100 us
    want_gbs = 2 * (2 * 8 * 32 * 1 * 128 + 2 * 8 * 8 * 8192 * 128) / 100e-6 / 1e9
    rc, out, err = run("show", path)
    lines = out.splitlines()
    head = next((l for l in lines if l.startswith("variant")), "")
    row = next((l for l in lines if "8x32/8x1/8192x128:bf16" in l), "")
    check("show: GB/s and bound columns with a decode problem", rc == 0 and "GB/s" in head and
          "bound" in head, out + err)
    check("show: the decode shape uncut, its GB/s and bound memory",
          row != "" and ("%.0f" % want_gbs) in row.split() and "memory" in row.split(), out)
    check("show: the GQA causal bf16 shape keeps its dtype in the table",
          "4x32/8x2048x128:c:bf16" in out, out)

    rc, out, err = run("show", path, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    d = next((r for r in rows if r["shape"] == "8x32/8x1/8192x128:bf16"), None)
    check("csv: the canonical shapes, achieved_gbs and floor_bound",
          rc == 0 and d is not None and abs(float(d["achieved_gbs"]) - want_gbs) < 1e-6 * want_gbs
          and d["floor_bound"] == "memory" and
          any(r["shape"] == "4x32/8x2048x128:causal:bf16" for r in rows), out + err)

    rc, out, err = run("show", path, "--format", "json")
    j = json.loads(out) if rc == 0 else {}
    shapes = [r["shape"] for r in j.get("records", [])]
    check("json: the whole problem", shapes == ["8x32/8x1/8192x128:bf16",
                                                "4x32/8x2048x128:causal:bf16"], out + err)

    rc, out, err = run("diff", path, path)
    check("diff: the compact shape keeps the dtype, the decode shape uncut",
          rc == 0 and "4x32/8x2048x128:c:bf16" in out and "8x32/8x1/8192x128:bf16" in out,
          out + err)

    # A record whose shape is malformed is refused in one line naming it.
    s["records"][0]["shape"] = "8x32/5x1/8192x128:bf16"
    json.dump(s, open(path, "w"), indent=1)
    rc, out, err = run("show", path)
    check("a malformed problem in a session: one line naming it",
          rc != 0 and "Hq (32) must be a multiple of Hkv (5)" in err and
          len(err.strip().splitlines()) == 1, err)
    shutil.rmtree(tmp)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
