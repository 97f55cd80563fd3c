"""What the hostile suites (hostile_worker.py, hostile_paths.py) share: a case is a function
case_NAME in the suite's file, run as the case 'NAME' in a temporary folder of its own against
the benchtop binary named on the command line; it notes what it saw and lists what went wrong.
One line per case, then the count of failed ones; exit 1 if any failed, 2 on a usage error.

    SUITE.py --list                   the case names, one a line
    SUITE.py BENCHTOP [CASE...]       run them (no CASE: all of them)
"""
import os, sys, tempfile, time


class Case:
    def __init__(self, name, bt, tmp):
        self.name, self.bt, self.tmp, self.problems, self.notes = name, bt, tmp, [], []

    def check(self, cond, what):
        if not cond:
            self.problems.append(what)
        return cond


def cases_in(namespace):
    """The suite's cases by name: case_stop_continue is 'stop-continue'."""
    return {n[5:].replace("_", "-"): f for n, f in sorted(namespace.items()) if n.startswith("case_")}


def main(doc, cases, tmp_prefix, new_case=Case, before=None):
    """Runs the cases sys.argv names; before(bt) runs once first. Returns the exit code."""
    if len(sys.argv) > 1 and sys.argv[1] == "--list":
        print("\n".join(cases))
        return 0
    if len(sys.argv) < 2:
        print(doc)
        return 2
    bt = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(cases)
    unknown = [n for n in names if n not in cases]
    if unknown:
        print("unknown case %s (cases: %s)" % (" ".join(unknown), " ".join(cases)))
        return 2
    if before:
        before(bt)
    width = max(len(n) for n in names)
    failed = 0
    for name in names:
        with tempfile.TemporaryDirectory(prefix=tmp_prefix) as tmp:
            c = new_case(name, bt, tmp)
            t0 = time.monotonic()
            try:
                cases[name](c)
            except Exception as e:  # a crash of the driver is a failure, named
                c.check(False, "driver: %r" % e)
            secs = time.monotonic() - t0
        print("%s %-*s %5.1f s  %s" % ("ok  " if not c.problems else "FAIL", width, name, secs,
                                        "; ".join(c.notes)))
        for p in c.problems:
            print("       - " + p)
        failed += bool(c.problems)
        sys.stdout.flush()
    print("%d of %d cases failed" % (failed, len(names)))
    return 1 if failed else 0
