import csv, statistics, sys
scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
for path in sys.argv[1:]:
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    if not rows: print(path, "no rows"); continue
    h = rows[0]; ki, mi, ui, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Unit"), h.index("Metric Value")
    by = {}
    for r in rows[1:]:
        if r[mi] != "gpu__time_duration.sum": continue
        by.setdefault(r[ki][:60], []).append(float(r[vi].replace(",", "")) * scale[r[ui]])
    for k, v in by.items():
        print("%s: %-60s n=%d median %.2f us (min %.2f max %.2f)" % (path.split('/')[-1], k, len(v), statistics.median(v), min(v), max(v)))
