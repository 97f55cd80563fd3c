#!/usr/bin/env python3
"""Numbers and cells as printed: a p50 (and every timing, floor and count) of 1e308 prints in a
bounded width in every format and in diff; CSV text cells opening with = + - @ are prefixed with
a quote (formula injection, as OWASP advises) while numeric cells, negative ones included, stay
numbers.

    format_test.py BENCHTOP
"""
import copy, csv, io, json, os, re, shutil, subprocess, sys, tempfile


def main(argv):
    exe = os.path.abspath(argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    tmp = tempfile.mkdtemp()
    bad = 0

    def check(what, ok, detail=""):
        nonlocal bad
        bad += not ok
        print("%s %s%s" % ("ok  " if ok else "FAIL", what, "" if ok else ": " + detail[:300]))

    def run(args):
        p = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")

    try:
        with open(os.path.join(here, "minimal.json")) as f:
            s = json.load(f)
        big = copy.deepcopy(s["records"][0])
        for k in ("p50", "p90", "p99", "min", "mean", "tflops"):
            big["timing"][k] = 1e308
        big["timing"]["samples"] = [1e308] * 3
        big["metrics"] = [{"name": "user__huge.sum", "value": 1e308, "unit": ""},
                          {"name": "user__neg.sum", "value": -2.5, "unit": ""}]
        big["knobs"] = "bm=128,stages=2"
        err = copy.deepcopy(s["records"][0])
        err["status"] = "error"
        err["reason"] = "=HYPERLINK(\"http://x\",\"y\")"
        err["knobs"] = "bm=64,stages=3"
        s["records"] += [big, err]
        path = os.path.join(tmp, "s.json")
        with open(path, "w") as f:
            json.dump(s, f)
        for fmt in ("table", "md", "csv"):
            rc, out, e = run(["show", path, "--format", fmt, "--wide"])
            longest = max(len(l) for l in out.splitlines())
            check("show --format %s: no line of hundreds of digits" % fmt,
                  rc == 0 and longest < 600 and not re.search(r"\d{40}", out), "longest %d" % longest)
        b = copy.deepcopy(s)
        b["records"] = [copy.deepcopy(big)]
        b["records"][0]["knobs"] = s["records"][0]["knobs"]
        path_b = os.path.join(tmp, "b.json")
        with open(path_b, "w") as f:
            json.dump(b, f)
        rc, out, e = run(["diff", os.path.join(here, "minimal.json"), path_b])
        check("diff: no run of hundreds of digits", not re.search(r"\d{40}", out), out)
        rc, out, e = run(["show", path, "--format", "csv"])
        rows = list(csv.DictReader(io.StringIO(out)))
        reasons = [r["reason"] for r in rows]
        check("CSV: a text cell opening with = is quoted as text", "'" + err["reason"] in reasons,
              repr(reasons))
        negs = [r.get("user__neg.sum") for r in rows]
        check("CSV: a negative number stays a number", "-2.5" in negs, repr(negs))
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
