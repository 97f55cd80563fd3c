#!/usr/bin/env python3
"""Numbers and cells as printed: a p50 (and every timing, floor and count) of 1e308 prints in a
bounded width in every format and in diff; CSV text cells opening with = + - @ are prefixed with
a quote (formula injection, as OWASP advises) while numeric cells, negative ones included, stay
numbers.

    format_test.py BENCHTOP
"""
import copy, csv, io, json, os, re, shutil, subprocess, sys, tempfile, unicodedata


def columns(text):
    """Terminal columns of text: East Asian wide and full-width characters take two."""
    return sum(0 if unicodedata.combining(ch) else
               2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def knob_starts(out):
    """The terminal column where each row's knob cell ('bm=...') starts."""
    return [columns(l[:l.index("bm=")]) for l in out.splitlines() if "bm=" in l]


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
        # Names of one, two and zero-width characters: the columns after them still align.
        w = copy.deepcopy(s)
        w["records"] = []
        for i, v in enumerate(["plain", "cafe\u0301", "caf\u00e9", "\u6ce8\u610f\u529b",
                               "\U0001F680rocket"]):
            r = copy.deepcopy(s["records"][0])
            r["variant"], r["knobs"] = v, "bm=%d,stages=2" % (64 * (i + 1))
            w["records"].append(r)
        path_w = os.path.join(tmp, "wide.json")
        with open(path_w, "w", encoding="utf-8") as f:
            json.dump(w, f, ensure_ascii=False)
        for args in (["show", path_w], ["diff", path_w, path_w]):
            rc, out, e = run(args)
            starts = knob_starts(out)
            check("%s: é, CJK and emoji names keep the columns aligned" % args[0],
                  len(starts) == 5 and len(set(starts)) == 1, "knob cells start at %r" % starts)
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
