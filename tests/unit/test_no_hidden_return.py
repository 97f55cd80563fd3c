#!/usr/bin/env python3
"""No macro in the product's code hides a `return`: a function that owns a resource (a graph
exec, events, a library) must see every way out of it, or an error path leaks what it made.
usage: test_no_hidden_return.py SOURCE_ROOT"""
import os, re, sys

root = sys.argv[1]
bad = []
for layer in ("common", "kernels", "sessions", "cupti", "bench", "tui", "cmd"):
    for dirpath, _, files in os.walk(os.path.join(root, layer)):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
            i = 0
            while i < len(lines):
                if re.match(r"\s*#\s*define\b", lines[i]):
                    start, body = i, lines[i]
                    while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):
                        i += 1
                        body += "\n" + lines[i]
                    if re.search(r"\breturn\b", body):
                        bad.append("%s:%d: %s" % (os.path.relpath(path, root), start + 1,
                                                  lines[start].strip()))
                i += 1
for b in bad:
    print("a macro hides a return:", b)
print("ok" if not bad else "%d macro(s) with a hidden return" % len(bad))
sys.exit(1 if bad else 0)
