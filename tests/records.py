#!/usr/bin/env python3
"""A session file's records, for the shell tests (tests/unit, tests/gpu):

    records.py count SESSION              how many records it holds (0 while it cannot be read)
    records.py wait SESSION N SECONDS     until it holds N records; exit 1 if not within SECONDS
    records.py expect SESSION RC WANT_RC VARIANT=STATUS[:REASON]...
        each VARIANT's record has STATUS and REASON within its reason, and benchtop's exit code
        RC is WANT_RC: one ok/FAIL line each, exit 1 on any FAIL
"""
import json, sys, time


def records(path):
    try:
        with open(path) as f:
            return json.load(f)["records"]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def expect(path, rc, want_rc, wants):
    recs = {r["variant"]: r for r in records(path)}
    width = max(len(w.split("=", 1)[0]) for w in wants)
    bad = 0
    for w in wants:
        v, st_why = w.split("=", 1)
        st, _, why = st_why.partition(":")
        r = recs.get(v)
        ok = r is not None and r["status"] == st and why in r.get("reason", "")
        bad += not ok
        print("%s %-*s %-6s %s" % ("ok  " if ok else "FAIL", width, v, r["status"] if r else "missing",
                                   (r or {}).get("reason", "")))
    if rc != want_rc:
        print("FAIL exit code %d, expected %d" % (rc, want_rc))
        bad += 1
    return 1 if bad else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "count":
        print(len(records(argv[2])))
        return 0
    if len(argv) == 5 and argv[1] == "wait":
        end = time.monotonic() + float(argv[4])
        while len(records(argv[2])) < int(argv[3]):
            if time.monotonic() > end:
                return 1
            time.sleep(0.05)
        return 0
    if len(argv) > 5 and argv[1] == "expect":
        return expect(argv[2], int(argv[3]), int(argv[4]), argv[5:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
