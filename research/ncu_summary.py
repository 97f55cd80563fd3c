#!/usr/bin/env python3
"""Median gpu__time_duration per kernel from `ncu --csv` files: python3 research/ncu_summary.py F..."""
import statistics
import sys

from ncu_clock import durations_us

for path in sys.argv[1:]:
    by = durations_us(open(path).read())
    if not by:
        print(path, "no rows")
    for k, v in by.items():
        print("%s: %-60s n=%d median %.2f us (min %.2f max %.2f)" % (
            path.split("/")[-1], k[:60], len(v), statistics.median(v), min(v), max(v)))
