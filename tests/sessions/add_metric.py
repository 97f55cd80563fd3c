#!/usr/bin/env python3
"""Writes a copy of sessions/catalog_table.c with one more line at the end of the catalog: the
test build of `benchtop` that proves a metric added to the catalog reaches every output with no
other edit. usage: add_metric.py IN OUT"""
import sys

LINE = ('    {"dram__bytes_read.sum", "dram rd", "bytes", METRIC_LOWER_BETTER, true,\n'
        '     "DRAM bytes read (a line added by the catalog test build)", false},\n')

src = open(sys.argv[1]).read()
start = src.index("const MetricInfo Catalog_headline[] = {")
end = src.index("\n};", start)
open(sys.argv[2], "w").write(src[:end + 1] + LINE + src[end + 1:])
