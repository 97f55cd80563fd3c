#!/usr/bin/env python3
"""show and diff on generated sessions far larger than a person makes by hand, each within a
generous time bound that a quadratic path cannot meet:

    scale_test.py BENCHTOP WORKDIR

  names   one session holding 40,000 distinct metric names (two records of 20,000 each), shown
          in every format: ~0.3 s of CPU here, and ~40 s when a name is looked up by scanning
          the others (columns, labels, a row's values).
  pairs   4,000 records of 100 samples each diffed against a session of the same keys and other
          samples (a bootstrap interval per pair): ~5 s of CPU here, ~25 s when each bootstrap
          replicate's median is a selection.
BENCHTOP_TEST_TIME_SCALE (or HOSTILE_TIME_SCALE, set by meson under the sanitizers) scales the
bounds."""
import copy, json, os, random, resource, subprocess, sys, time

NAMES_BOUND_S = 10.0
PAIRS_BOUND_S = 14.0


def scale():
    for k in ("BENCHTOP_TEST_TIME_SCALE", "HOSTILE_TIME_SCALE"):
        if os.environ.get(k):
            return float(os.environ[k])
    return 1.0


def base_record():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "minimal.json")) as f:
        s = json.load(f)
    return s, s["records"][0]


def write(path, session):
    with open(path, "w") as f:
        json.dump(session, f)


def cpu_of_children():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def timed(argv, bound, what):
    """Runs argv; its CPU time (not the wall clock: a loaded machine stretches that) must stay
    within bound seconds. A run past 10 x bound of wall time is stopped and fails."""
    t0 = cpu_of_children()
    try:
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=bound * 10)
    except subprocess.TimeoutExpired:
        print("FAIL %s: still running after %.0f s (bound %.0f s of CPU)" % (what, bound * 10, bound))
        return False
    took = cpu_of_children() - t0
    ok = p.returncode == 0 and took <= bound
    print("%s %s: %.2f s of CPU (bound %.0f s), exit %d %s" % ("ok  " if ok else "FAIL", what, took,
                                                             bound, p.returncode,
                                                             p.stderr.decode()[:200].strip()))
    return ok


def test_names(exe, work, k):
    session, rec = base_record()
    recs = []
    for i in range(2):
        r = copy.deepcopy(rec)
        r["knobs"] = "bm=64,stages=%d" % (i + 2)
        r["metrics"] = [{"name": "user__m%05d_%d.sum" % (j, i), "value": j + 0.5, "unit": ""}
                        for j in range(20000)]
        recs.append(r)
    session["records"] = recs
    path = os.path.join(work, "names.json")
    write(path, session)
    ok = True
    for fmt in ("table", "csv", "md", "json"):
        ok &= timed([exe, "show", path, "--format", fmt], NAMES_BOUND_S * k, "show --format %s of 40000 names" % fmt)
    ok &= timed([exe, "diff", path, path, "--format", "csv"], NAMES_BOUND_S * k, "diff of 40000 names")
    return ok


def test_pairs(exe, work, k):
    session, rec = base_record()
    rng = random.Random(7)
    sides = []
    for side in range(2):
        recs = []
        for i in range(4000):
            r = copy.deepcopy(rec)
            r["knobs"] = "bm=64,stages=%d" % i
            r["metrics"] = []
            smp = [round(4.5 * (1 + 0.02 * rng.gauss(0, 1)), 4) for _ in range(100)]
            r["timing"]["samples"] = smp
            r["timing"]["nsamples"] = len(smp)
            recs.append(r)
        s = copy.deepcopy(session)
        s["records"] = recs
        path = os.path.join(work, "pairs-%d.json" % side)
        write(path, s)
        sides.append(path)
    return timed([exe, "diff", sides[0], sides[1]], PAIRS_BOUND_S * k, "diff of 4000 pairs")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, work = argv[1], argv[2]
    os.makedirs(work, exist_ok=True)
    k = scale()
    ok = test_names(exe, work, k)
    ok &= test_pairs(exe, work, k)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
