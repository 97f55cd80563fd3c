#!/usr/bin/env python3
"""Limits through the real binary (no GPU: tests/unit/hostile_worker.py stands in for the
worker): text that a fixed buffer would cut is run whole or refused with its limit, never cut;
a plan too large to expand is refused with its count before a byte is spent on it.

Which test guards which fixed buffer (git grep for the buffers; each is listed here):
  bench/plan.c Plan_addKnob's sweep text (was char[512], now sized) ..... knob-sweep-long
  sessions/session.h Plan.metrics, bench/plan.h PlanEntry.metrics [512] . metrics-long
  RECORD_KNOBS_MAX = KNOB_TEXT_MAX [160]: Record.knobs, TunedEntry.knobs,
    TuneSummary.winner_knobs/runner_up, the request's and the runner's knob text,
    check-kernels' knob text (kernels/decl.c refuses a longer declaration) knob-text-long
  bench/tune/tune_space.c tune --knob value text: was char[160], now on the heap (no buffer left)
  bench/tune/tune_table.c TunedTable_path (BENCHTOP_TUNED_TABLE, [4096]) ...... test_tune_table
  -o path [4096] of run, replay, tune (run_loop.c, cmd_tune.c), new's
    folder [4096], TunedEntry.session [512] from tune ..................... long-paths
  --kernels DIR (cmd/table.c, was cut to PATH_MAX): no buffer left
  BENCHTOP_SHIPPED_TUNED (TunedTable_shippedDir): a name too long is no folder (no test)
  common/expand.c's ~user and $VAR names [256], its output ............... expand_path (test_expand.c)
  sessions/diff_match.h --match text [MATCH_TEXT_MAX] ..................... match-long
  tui/view_runopts.c the run options' metrics [512] (refused like --metrics; no TUI test here)
  a session file's fixed text fields (Record.variant, .knobs, metric names, Plan.metrics, ...):
    Json_readStr refuses a longer string ................................ session-malformed
    (tests/malformed/string-too-long.json)
  --metrics names [METRIC_NAME_MAX] (sessions/catalog.c refuses) .......... cupti_test_catalog
  a plan's expansion (PLAN_ENTRIES_MAX runs) ............................. plan-too-big
  a second --knob of one knob (was: the last kept) ........................ knob-repeated
  --fail-above text (decimal only) ........................................ fail-above-hex
  tune --simulate's coverage of the space ................................. simulate-coverage
  a tune summary's winner of another variant (refused on load) ........... tune-winner-foreign
  --kernels on every command that takes variants or a plan ................ kernel-path-options

    hostile_limits.py BENCHTOP [CASE...]      (no CASE: all of them)
"""
import json, os, re, resource, sys

import hostile_suite
from hostile_paths import Case, records, refused

SHAPE = ["-s", "1x1x64x64", "--metrics", "none", "--reps", "1", "--warmup", "0"]


def user_kernel(c, knob_lines, name="mine"):
    """A kernel directory holding a copy of naive with the given knob lines (each macro used)."""
    d = c.path("kernels")
    os.makedirs(d, exist_ok=True)
    rc, _, err = c.bt_run(["new", name, "-f", "naive", "-o", d])
    c.check(rc == 0, "benchtop new: exit %d: %s" % (rc, err[-300:]))
    path = os.path.join(d, name + ".cu")
    text = open(path).read()
    head, rest = text.split("*/", 1)
    macros = [l.split()[2] for l in knob_lines]
    uses = "".join("static const long long used_%s = %s;\n" % (m.lower(), m) for m in macros)
    open(path, "w").write(head + "\n".join(knob_lines) + "\n*/" + rest + "\n" + uses)
    return d


def case_knob_sweep_long(c):
    """A sweep whose text is over 511 bytes runs every value, and the saved plan holds them all
    (replay would repeat a cut plan)."""
    d = user_kernel(c, ["knob big BIG 1000000..1000255 : a knob of 256 long values"])
    values = [str(1000000 + i) for i in range(256)]
    s = c.path("s.json")
    rc, _, err = c.bt_run(["run", "-v", "mine", "--kernels", d, "--knob", "big=" + ",".join(values),
                           "-o", s] + SHAPE, timeout=240)
    recs = records(s) or []
    got = sorted({r["knobs"] for r in recs})
    c.check(rc == 0 and len(recs) == 256 and len(got) == 256,
            "exit %d, %d records, %d distinct knobs, want 256 (%s)" % (rc, len(recs), len(got), err[-200:]))
    try:
        plan = json.load(open(s))["plan"]["variants"][0]["knobs"][0]
        c.check(plan == "big=" + ",".join(values), "the saved plan's sweep is cut: %d bytes" % len(plan))
    except (OSError, ValueError, KeyError, IndexError) as e:
        c.check(False, "no saved plan: %r" % e)


def case_knob_text_long(c):
    """A declaration whose knob text could exceed 159 bytes is refused at load with its limit:
    never run with knob strings cut alike in requests, records and the tuned table."""
    names = ["knob knob_with_a_rather_long_name_%02d K%02d {long_word_one=1, long_word_two=2}" % (i, i)
             for i in range(4)]
    d = user_kernel(c, names)
    s = c.path("s.json")
    rc, out, err = c.bt_run(["run", "-v", "mine", "--kernels", d, "-o", s] + SHAPE)
    c.check(rc == 2 and "at most 159" in err, "run: exit %d: %s" % (rc, err.strip()[-300:]))
    c.check(not records(s), "records were written with the knob text cut")
    rc, out, err = c.bt_run(["check-kernels", "--kernels", d, "--variant", "mine"])
    if rc == 3 and "viewer build" in err:
        return  # a viewer build compiles nothing: run's refusal above is the load-time check
    c.check(rc != 0 and "at most 159" in out + err, "check-kernels: exit %d: %s" % (rc, (out + err).strip()[-300:]))


def case_metrics_long(c):
    """--metrics longer than the plan holds is refused with its limit (the worker was asked
    for a metric named by the cut tail)."""
    names = ",".join(["sm__warps_active.avg.pct_of_peak_sustained_active"] * 12)
    for cmd in (["run", "-v", "naive"], ["tune", "-v", "smem"]):
        s = c.path("s-%s.json" % cmd[0])
        rc, _, err = c.bt_run(cmd + ["-s", "1x1x64x64", "--metrics", names, "-o", s])
        c.check(rc == 2 and "at most 511" in err and err.strip().count("\n") == 0,
                "%s: exit %d: %s" % (cmd[0], rc, err.strip()[-300:]))
        c.check(not records(s), "%s ran with the metrics cut" % cmd[0])


def small_memory():
    """Before the cap, expanding the plan ate all memory: bound it so the failure is quick."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def memory_bound(c):
    """small_memory, unless the binary is built with AddressSanitizer (its shadow memory needs
    a huge address space: there the test relies on the timeout instead)."""
    with open(c.bt, "rb") as f:
        return None if b"__asan_init" in f.read() else small_memory


def case_plan_too_big(c):
    """Three knobs of 256 values (16.7 million runs) is refused with its count before it is
    expanded: on the command line (exit 2) and in a session's plan (replay: exit 1, a bad file,
    one line)."""
    d = user_kernel(c, ["knob a A 0..255 : a", "knob b B 0..255 : b", "knob e E 0..255 : e"])
    sweep = ",".join(str(i) for i in range(256))
    knobs = ["--knob", "a=" + sweep, "--knob", "b=" + sweep, "--knob", "e=" + sweep]
    s = c.path("s.json")
    rc, _, err = c.bt_run(["run", "-v", "mine", "--kernels", d, "-o", s] + knobs + SHAPE,
                          preexec_fn=memory_bound(c), timeout=60)
    c.check(rc == 2 and "16777216 runs" in err and "at most 100000" in err,
            "run: exit %d: %s" % (rc, err.strip()[-300:]))
    # The same plan in a small session file: replay refuses it, never aborts.
    rc, _, err = c.bt_run(["run", "-v", "mine", "--kernels", d, "-o", s] + SHAPE)
    c.check(rc == 0, "making the session: exit %d: %s" % (rc, err[-300:]))
    doc = json.load(open(s))
    doc["plan"]["variants"] = [{"name": "mine", "knobs": ["a=" + sweep, "b=" + sweep, "e=" + sweep]}]
    hostile = c.path("hostile.json")
    json.dump(doc, open(hostile, "w"))
    c.check(os.path.getsize(hostile) < 16000, "the hostile session is %d bytes" % os.path.getsize(hostile))
    rc, _, err = c.bt_run(["replay", hostile, "--kernels", d, "-o", c.path("r.json")],
                          preexec_fn=memory_bound(c), timeout=60)
    # A bad file is exit 1 (README's exit codes; hostile-paths-replay-plan), not an abort.
    c.check(rc == 1 and "16777216 runs" in err and err.strip().count("\n") == 0,
            "replay: exit %d: %s" % (rc, err.strip()[-300:]))


def case_knob_repeated(c):
    """A second --knob of the same knob is refused (it silently kept the last)."""
    for cmd in ("run", "tune"):
        s = c.path("s-%s.json" % cmd)
        refused(c, cmd, [cmd, "-v", "smem", "--knob", "pad=0", "--knob", "pad=8", "-o", s] + SHAPE, s,
                want_rc=2, text="given twice")
    # The same in a session's plan (a file): replay refuses it instead of keeping the last.
    s = c.path("s.json")
    rc, _, err = c.bt_run(["run", "-v", "smem", "-o", s] + SHAPE)
    doc = json.load(open(s))
    doc["plan"]["variants"] = [{"name": "smem", "knobs": ["pad=0", "pad=8"]}]
    json.dump(doc, open(c.path("twice.json"), "w"))
    rc, _, err = c.bt_run(["replay", c.path("twice.json"), "-o", c.path("r.json")])
    c.check(rc in (1, 2) and "set twice" in err, "replay: exit %d: %s" % (rc, err.strip()[-300:]))


def case_fail_above_hex(c):
    """--fail-above takes a decimal percentage: 0x10, 1e1x and inf are refused, saying so."""
    rc, _, err = c.bt_run(["run", "-v", "naive", "-o", c.path("s.json")] + SHAPE)
    c.check(rc == 0, "making the session: exit %d" % rc)
    for bad in ("0x10", "0X1p4", "inf", "nan", "1e1x"):
        rc, _, err = c.bt_run(["diff", c.path("s.json"), c.path("s.json"), "--fail-above", bad])
        c.check(rc == 2 and "decimal" in err, "--fail-above %s: exit %d: %s" % (bad, rc, err.strip()[-200:]))
    rc, _, err = c.bt_run(["diff", c.path("s.json"), c.path("s.json"), "--fail-above", "2.5"])
    c.check(rc == 0, "--fail-above 2.5: exit %d: %s" % (rc, err.strip()[-200:]))


def case_kernel_path_options(c):
    """Every command that takes variants or a plan takes --kernels DIR (tune lacked it, though
    `new` tells the user to add it), and tune takes run's plan options under the same names."""
    d = user_kernel(c, ["knob big BIG {1, 2} : two values"])
    t = c.path("t.json")
    rc, _, err = c.bt_run(["tune", "-v", "mine", "--kernels", d, "-o", t] + SHAPE, timeout=120)
    got = {r["variant"] for r in records(t) or []}
    c.check(rc == 0 and got == {"mine"}, "tune --kernels: exit %d, variants %s: %s" % (rc, got, err.strip()[-300:]))
    plan_opts = ["--variants", "--shapes", "--knob", "--metrics", "--reps", "--warmup", "--cold-l2",
                 "--graph", "--timing", "--seed", "--watchdog", "--devices", "--output", "--format",
                 "--kernels"]
    rc, _, err = c.bt_run(["--kernels", d, "--version"])  # the TUI's own options
    c.check(rc == 0, "benchtop --kernels DIR (the TUI): exit %d: %s" % (rc, err.strip()[-200:]))
    for cmd in ("run", "tune", "replay", "list", "check-kernels", "new", "bench-metrics"):
        rc, out, _ = c.bt_run([cmd, "--help"])
        want = plan_opts if cmd in ("run", "tune") else ["--kernels"]
        missing = [o for o in want if o not in out]
        c.check(rc == 0 and not missing, "%s --help lacks %s" % (cmd, " ".join(missing)))


def case_simulate_coverage(c):
    """tune --simulate on a session that scored a few configurations of the space says how few
    (stdout and a warning on stderr) instead of judging the strategies silently on those."""
    t = c.path("t.json")
    rc, _, err = c.bt_run(["tune", "-v", "mma", "--budget", "6", "--no-table", "-o", t] + SHAPE,
                          timeout=120)
    c.check(rc == 0, "making the tune: exit %d: %s" % (rc, err.strip()[-300:]))
    rc, out, err = c.bt_run(["tune", "--simulate", t])
    c.check(rc == 0 and "coverage: only " in out and re.search(r"of the \d+ configurations", out),
            "stdout does not say the coverage: exit %d: %s" % (rc, out[:400]))
    c.check("warning" in err and "have a score" in err, "no warning on stderr: %s" % err.strip()[-300:])


def case_tune_winner_foreign(c):
    """A tune summary whose winner is another variant's record is refused when the session is
    read (show and tune-table name it), not taken into the tuned table."""
    t = c.path("t.json")
    rc, _, err = c.bt_run(["tune", "-v", "smem,mma", "--budget", "4", "--no-table", "-o", t] + SHAPE,
                          timeout=120)
    c.check(rc == 0, "making the tune: exit %d: %s" % (rc, err.strip()[-300:]))
    doc = json.load(open(t))
    recs, tune = doc["records"], doc.get("tune", [])
    smem = [i for i, r in enumerate(recs) if r["variant"] == "smem"]
    mma_tune = [x for x in tune if x["variant"] == "mma"]
    if not c.check(smem and mma_tune, "no smem record or mma summary to work with"):
        return
    mma_tune[0]["winner"] = smem[0]
    bad = c.path("bad.json")
    json.dump(doc, open(bad, "w"))
    for args in (["show", bad], ["tune-table", "-o", c.path("table.json"), bad]):
        rc, out, err = c.bt_run(args)
        c.check(rc != 0 and "winner: record %d is smem" % smem[0] in err,
                "%s: exit %d: %s" % (args[0], rc, err.strip()[-300:]))
    c.check(not os.path.exists(c.path("table.json")), "tune-table wrote a table")


def cut_to(c, name, limit=4095):
    """A path longer than limit bytes whose first limit bytes name another file in the case's
    folder (slashes repeat harmlessly): what a cut copy of it would write."""
    pad = limit - len(c.tmp) - len(name) + 2  # the cut keeps the tmp folder, slashes, name[:-2]
    full = c.tmp + "/" * pad + name
    return full, os.path.join(c.tmp, name[:-2])


def case_long_paths(c):
    """-o names (run, replay, tune, new) longer than the path buffer are refused with the limit;
    nothing is written under the cut name (which would be another file)."""
    s = c.path("s.json")
    rc, _, err = c.bt_run(["run", "-v", "naive", "-o", s] + SHAPE)
    c.check(rc == 0, "making the session: exit %d" % rc)
    for args in (["run", "-v", "naive"] + SHAPE, ["replay", s], ["tune", "-v", "smem"] + SHAPE):
        full, cut = cut_to(c, "victim.json")
        rc, _, err = c.bt_run(args + ["-o", full])
        c.check(rc != 0 and "at most 4095" in err, "%s: exit %d: %s" % (args[0], rc, err.strip()[-200:]))
        c.check(not os.path.exists(cut), "%s wrote %s, the cut name" % (args[0], cut))
    full, cut = cut_to(c, "kdir-xy")
    rc, _, err = c.bt_run(["new", "mine", "-f", "naive", "-o", full])
    c.check(rc == 2 and "at most 4095" in err, "new: exit %d: %s" % (rc, err.strip()[-200:]))
    c.check(not os.path.exists(cut), "new made %s, the cut name" % cut)
    # The tuned table names a tune's session by its file name (it held the cut folder).
    deep = c.path("d" * 200 + "/" + "e" * 200 + "/" + "f" * 200)
    os.makedirs(deep)
    rc, _, err = c.bt_run(["tune", "-v", "smem", "-o", deep + "/t.json"] + SHAPE)
    try:
        entries = json.load(open(c.path("cache/benchtop/tuned.json")))["entries"]
        c.check(rc == 0 and entries and all(e["session"] == "t.json" for e in entries),
                "tuned table's session: %s" % [e["session"][-40:] for e in entries])
    except (OSError, ValueError, KeyError) as e:
        c.check(False, "no tuned table after the tune: exit %d, %r: %s" % (rc, e, err.strip()[-200:]))


def case_match_long(c):
    """diff --match knob text longer than its buffer is refused with one line, never cut."""
    s = c.path("s.json")
    rc, _, err = c.bt_run(["run", "-v", "naive", "-o", s] + SHAPE)
    rc, _, err = c.bt_run(["diff", s, s, "--match", "smem pad=%s vs smem pad=8" % ("8" * 60)])
    c.check(rc == 2 and err.strip().count("\n") == 0 and "at most 47" in err, "exit %d: %s" % (rc, err.strip()[-200:]))


CASES = hostile_suite.cases_in(globals())

if __name__ == "__main__":
    sys.exit(hostile_suite.main(__doc__, CASES, "bt-limits-", new_case=Case))
