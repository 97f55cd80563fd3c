#!/usr/bin/env python3
"""TEST FIXTURE for the chart tests: the bundled example plus records that give the sweep and
tune charts something to draw (numbers invented from the example's own, nothing measured):
mma's record repeated at S = 1024, 2048, 4096 (p50 growing as S^2), and six fa3 records of a
tune on 2x8x512x64 with ranks, a winner and one tied with it.
   chart_fixture.py EXAMPLE.json OUT.json"""
import copy
import json
import sys

src, out = sys.argv[1], sys.argv[2]
s = json.load(open(src))
recs = s["records"]
mma = next(r for r in recs if r["variant"] == "mma" and not r["shape"].endswith(":causal"))
fa3 = next(r for r in recs if r["variant"] == "fa3" and not r["shape"].endswith(":causal"))
for S in (1024, 2048, 4096):
    r = copy.deepcopy(mma)
    r["shape"] = f"2x8x{S}x64"
    r["timing"]["p50"] = round(mma["timing"]["p50"] * (S / 512) ** 2 * 0.9, 3)
    r.pop("floors", None)
    recs.append(r)
p50s = [9.1, 8.4, 7.2, 6.0, 6.05, 7.7]
order = sorted(range(len(p50s)), key=lambda i: p50s[i])
for i, p in enumerate(p50s):
    r = copy.deepcopy(fa3)
    r["knobs"] = r["knobs"].replace("block_n=128", f"block_n={32 * (i + 1)}")
    r["timing"]["p50"] = p
    r.pop("floors", None)
    r["tune"] = {"rank": order.index(i) + 1, "of": len(p50s), "winner": i == 3, "tied": i == 4}
    recs.append(r)
json.dump(s, open(out, "w"), indent=1)
