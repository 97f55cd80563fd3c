#!/usr/bin/env python3
"""The verdicts of tests/gpu/gpu_grid.sh.

grid_report.py grid OUTDIR GRID VARIANTS ROOT
    (a) the grid stopped once and resumed: the stop kept what finished, the rerun resumed and
    finished, measured no search twice (none of the first run's searches again, none with more
    records than its budget), and the table has an entry for every problem and variant of the
    grid that the variant runs. One line per check, then `grid: PASS|FAIL, N of M checks`.
grid_report.py heldout OUTDIR [OUTDIR...]
    (b) (several OUTDIRs: the slices of HELDOUT_SLICE, judged together) per held-out problem and variant: the best the full tune found and the knobs the grid's
    table gave the plain run, both measured again by the referee in interleaved rounds (medians
    over rounds), and the table's loss against the best. PASS when >= 90 % are within 5 % and all
    within 10 %."""
import json, os, re, statistics, sys

WITHIN, ALL_WITHIN, SHARE = 0.05, 0.10, 0.90


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def canonical(text):
    parts = text.split(":")
    b, h, s, d = parts[0].split("x")
    hq, _, hkv = h.partition("/")
    sq, _, skv = s.partition("/")
    out = "x".join([b, hq if not hkv or hkv == hq else "%s/%s" % (hq, hkv),
                    sq if not skv or skv == sq else "%s/%s" % (sq, skv), d])
    return out + (":causal" if "causal" in parts[1:] else "") + (":bf16" if "bf16" in parts[1:] else "")


def grid_file(grid, root):
    if "/" in grid or grid.endswith(".grid"):
        return grid
    return os.path.join(root, "kernels", "grids", grid + ".grid")


def grid_problems(path):
    out = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line and not line[0].isalpha():
            out.append(canonical(line))
    return out


def tuned_lines(path):
    """{(variant, problem)} of the searches a run finished (its stdout)."""
    done = set()
    for line in open(path) if os.path.exists(path) else []:
        f = line.split()
        if len(f) >= 3 and re.match(r"^\d+/\d+$", f[0]):
            done.add((f[1], f[2]))
    return done


def skipped(paths, problems):
    """{(variant, problem)} the runs said they skip (a line each, or one for all problems)."""
    out = set()
    for p in paths:
        for line in open(p) if os.path.exists(p) else []:
            m = re.match(r"benchtop tune: skipped (\S+) at all \d+ problems", line)
            if m:
                out.update((m.group(1), q) for q in problems)
                continue
            m = re.match(r"benchtop tune: skipped (\S+) at (\S+):", line)
            if m:
                out.add((m.group(1), m.group(2)))
    return out


def grid_report(out, grid, variants, root):
    checks = []
    def check(ok, what):
        checks.append(ok)
        print(("PASS " if ok else "FAIL ") + what)
    def text(name):
        path = os.path.join(out, name)
        return open(path).read() if os.path.exists(path) else ""
    # Runs 1 (stopped by SIGINT) and 2 (resumed), and any later resumption (run 3 on: a session
    # carried to another device call): the last run must finish the grid.
    exits = {int(n): int(rc) for n, rc in re.findall(r"grid run (\d+): exit (\d+)", text("grid-runs.txt"))}
    rc1, last = exits.get(1, -1), max(exits) if exits else 2
    check(rc1 == 130, "run 1 stopped by SIGINT kept its finished searches (exit %d)" % rc1)
    m = re.search(r"resuming .*: (\d+) of (\d+) searches done", text("grid-2.err"))
    check(m is not None, "run 2 resumed the session (%s)" % (m.group(0) if m else "no 'resuming' line"))
    m = re.search(r"(\d+) searches done now, (\d+) before, (\d+) skipped, (\d+) to do", text("grid-%d.err" % last))
    check(exits.get(last, -1) == 0 and m is not None and m.group(4) == "0",
          "run %d finished the grid (exit %d; %s)" % (last, exits.get(last, -1), m.group(0) if m else "no summary line"))
    tuned = [tuned_lines(os.path.join(out, "grid-%d.out" % n)) for n in sorted(exits) or [1, 2]]
    again = set().union(*[a & b for i, a in enumerate(tuned) for b in tuned[i + 1:]]) if len(tuned) > 1 else set()
    check(not again, "no search measured again by a later run (%s searches%s)"
          % (" then ".join(str(len(t)) for t in tuned), "; again: %s" % sorted(again)[:3] if again else ""))
    s = load(os.path.join(out, "grid.json")) or {"records": [], "tune": []}
    count = {}
    for r in s["records"]:
        count[(r["variant"], r["shape"])] = count.get((r["variant"], r["shape"]), 0) + 1
    over = [(t["variant"], t["shape"], count.get((t["variant"], t["shape"]), 0), t["budget"]) for t in s["tune"]
            if count.get((t["variant"], t["shape"]), 0) != t["measured"] or t["measured"] > t["budget"]]
    check(s["tune"] and not over, "every search holds its own records only, within its budget (%d searches; %s)"
          % (len(s["tune"]), "over: %s" % over[:3] if over else "none over"))
    problems = grid_problems(grid_file(grid, root))
    skip = skipped([os.path.join(out, "grid-%d.err" % n) for n in sorted(exits) or [1, 2]], problems)
    table = load(os.path.join(out, "grid-table.json")) or {"entries": []}
    have = {(e["variant"], e["shape"]) for e in table["entries"]}
    want = [(v, p) for p in problems for v in variants.split(",") if (v, p) not in skip]
    missing = [w for w in want if w not in have]
    check(want and not missing, "the table has an entry for every problem and variant of the grid (%d of %d; %d skipped: "
          "the variant does not run the problem%s)" % (len(want) - len(missing), len(want), len(skip),
                                                       "; missing: %s" % missing[:4] if missing else ""))
    ok = all(checks)
    print("grid: %s, %d of %d checks passed" % ("PASS" if ok else "FAIL", sum(checks), len(checks)))
    return 0 if ok else 1


def knobset(k):
    return frozenset(x for x in (k or "").split(",") if x)


def rounds(session):
    p50s = {}
    for r in (session or {}).get("records", []):
        if r["status"] == "pass" and r.get("timing", {}).get("p50"):
            p50s.setdefault(knobset(r["knobs"]), []).append(r["timing"]["p50"])
    return {k: statistics.median(v) for k, v in p50s.items()}


def heldout_report(outs):
    units = [(out, l.split()) for out in outs for l in open(os.path.join(out, "heldout-units.txt")) if l.strip()]
    rows, losses = [], []
    for out, (tag, problem, v, _reps) in units:
        ref, auto = load(os.path.join(out, "ref-%s.json" % tag)), load(os.path.join(out, "refauto-%s.json" % tag))
        best = rounds(ref)
        plain = rounds(auto)
        note = ""
        for r in (auto or {}).get("records", []):
            note = r.get("knobs_auto", "") or note
        if not best or len(plain) != 1:
            rows.append((problem, v, None, None, None, "not measured (%s)" % ("no referee rounds" if not best else
                                                                              "the plain knobs varied" if plain else "no plain run")))
            continue
        (pk, pp), = plain.items()
        bk = min(best, key=best.get)
        loss = 0.0 if pk == bk else pp / best[bk] - 1
        losses.append(loss)
        rows.append((problem, v, best[bk], pp, loss, ("same knobs as the best; " if pk == bk else "") + note))
    print("%-26s %-5s %10s %10s %8s  %s" % ("problem", "var", "best us", "plain us", "loss", "where the plain knobs came from"))
    for problem, v, b, p, loss, note in rows:
        if loss is None:
            print("%-26s %-5s %10s %10s %8s  %s" % (problem, v, "-", "-", "-", note))
        else:
            print("%-26s %-5s %10.4g %10.4g %7.1f%%  %s" % (problem, v, b, p, 100 * loss, note[:150]))
    n = len(units)
    within = sum(l <= WITHIN for l in losses)
    worst = max(losses) if losses else float("nan")
    ok = len(losses) == n and within >= SHARE * n and all(l <= ALL_WITHIN for l in losses)
    print("heldout: %s, %d of %d problem x variant within %d %% of the best (%d measured), worst %.1f %%; "
          "needs >= %d %% within %d %% and all within %d %%" % ("PASS" if ok else "FAIL", within, n, 100 * WITHIN,
                                                              len(losses), 100 * worst, 100 * SHARE, 100 * WITHIN,
                                                              100 * ALL_WITHIN))
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "grid":
        sys.exit(grid_report(*sys.argv[2:]))
    if len(sys.argv) >= 3 and sys.argv[1] == "heldout":
        sys.exit(heldout_report(sys.argv[2:]))
    print(__doc__)
    sys.exit(2)
