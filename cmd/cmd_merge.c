/* benchtop merge: shard sessions (run --shard I/N on several hosts) into one session in plan
 * order. Every problem is one line and then nothing is written; the output never replaces an
 * input, and replaces another file only with --force. Needs no GPU. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/plan.h"
#include "bench/tune/tune_table.h"
#include "cmd/commands.h"
#include "common/util.h"
#include "sessions/json_fields.h"
#include "sessions/merge.h"
#include "sessions/session.h"

enum { MERGE_OUTPUT, MERGE_FORCE, MERGE_NOPTS };

static const CommandOption merge_options[] = {
  [MERGE_OUTPUT] = {.name = "output", .short_name = 'o', .value = CMD_TEXT, .arg = "ALL.json",
                    .help = "the merged session (a new file)", .complete = CMD_COMPLETE_SESSION,
                    .flags = CMD_OPT_REQUIRED},
  [MERGE_FORCE] = {.name = "force", .value = CMD_FLAG,
                   .help = "replace the output file if it exists (never one of the shards)"},
};

static const CommandArg merge_args[] = {
  {"SHARD.json", "the session of every shard of one plan (benchtop run --shard I/N)", NULL,
   CMD_COMPLETE_SESSION, CMD_ARG_REPEAT},
};

static void Merge_say(const char *what, const char *line) {
  fprintf(stderr, "benchtop merge: %s%s\n", what, line);
}

/* The output may not be a shard (by any name) and replaces an existing file only when forced. */
static bool Merge_checkOutput(const char *out, char **inputs, int n, bool force) {
  struct stat so, si;
  char msg[4200];
  bool exists = stat(out, &so) == 0;
  for (int i = 0; exists && i < n; i++)
    if (stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
      snprintf(msg, sizeof msg, "-o %s is one of the shards: give a new file", out);
      Json_oneLine(msg);
      Merge_say("", msg);
      return false;
    }
  if (exists && !force) {
    snprintf(msg, sizeof msg, "-o %s exists: give a new file, or --force to replace it", out);
    Json_oneLine(msg);
    Merge_say("", msg);
    return false;
  }
  if (exists && !S_ISREG(so.st_mode)) {
    snprintf(msg, sizeof msg, "-o %s is not a regular file", out);
    Json_oneLine(msg);
    Merge_say("", msg);
    return false;
  }
  return true;
}

/* A shard that ran tuned knobs for a variant given none pinned them in its own plan only
 * (run's Plan_pin): the merged plan takes every shard's from the records, so that replay
 * repeats what each shard ran. A plan of --knob auto resolves again on replay: left alone. */
static void Merge_pinTuned(Session *s) {
  if (s->plan.knobs_auto) return;
  for (int i = 0; i < s->nrecords; i++) {
    const Record *r = &s->records[i];
    const Variant *v = Registry_find(r->variant);
    if (!v || !TunedTable_noteIsTuned(r->knobs_auto)) continue;
    PlanEntry e;
    memset(&e, 0, sizeof e);
    e.variant = v;
    e.shape = r->shape;
    char err[256];
    Registry_defaults(v, &e.knobs);
    if (Registry_applyKnobs(v, r->knobs, &e.knobs, false, err, sizeof err)) Plan_pin(&s->plan, &e);
  }
}

static int Merge_exec(const CommandArgs *a) {
  const char *out_path = CommandArgs_text(a, MERGE_OUTPUT, "");
  int n = a->npos;
  if (!Merge_checkOutput(out_path, a->pos, n, CommandArgs_has(a, MERGE_FORCE))) {
    Merge_say("", "nothing written");
    return BT_EXIT_FAILED;
  }
  Session *shards = Util_xcalloc((size_t)n, sizeof *shards);
  bool loaded = true;
  for (int i = 0; i < n; i++) {
    char err[1024];
    if (!Session_load(a->pos[i], &shards[i], err, sizeof err)) {
      Merge_say("", err);
      loaded = false;
    }
  }
  int rc = BT_EXIT_FAILED;
  Session merged;
  MergeReport rep;
  memset(&rep, 0, sizeof rep);
  if (loaded && Merge_shards(shards, (const char *const *)a->pos, n, &merged, &rep)) {
    char err[1024];
    Merge_pinTuned(&merged);
    if (Session_saveAs(&merged, out_path, CommandArgs_has(a, MERGE_FORCE), err, sizeof err)) {
      char shown[4200];
      snprintf(shown, sizeof shown, "%s", out_path);
      Json_oneLine(shown);
      printf("merged %d shards (%d records of a plan of %d entries) into %s\n", n,
             merged.nrecords, shards[0].shard.plan_size, shown);
      rc = BT_EXIT_OK;
    } else {
      Merge_say("", err);
    }
    Session_free(&merged);
  }
  for (int i = 0; i < rep.nnotes; i++) Merge_say("note: ", rep.notes[i]);
  for (int i = 0; i < rep.nproblems; i++) Merge_say("", rep.problems[i]);
  if (rc != BT_EXIT_OK) Merge_say("", "nothing written");
  MergeReport_free(&rep);
  for (int i = 0; i < n; i++) Session_free(&shards[i]);
  free(shards);
  return rc;
}

const Command Cmd_merge = {
  .name = "merge",
  .summary = "combine the shard sessions of one plan (run --shard I/N) into one session",
  .description = "Combines the sessions of every shard of one plan, run on one host or many "
                 "(benchtop run --shard I/N, or --shard slurm in a Slurm job array: "
                 "docs/cluster.md), into one session with the records in plan order, as if one "
                 "host had run the whole plan; each record keeps its host and GPU.\n\n"
                 "Nothing is dropped or doubled without a word: shards of different plans or "
                 "schemas, a shard given twice, a missing shard, a shard whose job stopped "
                 "early (fewer records than its slice, or a cancelled one) and a file cut short "
                 "each get one line, and then nothing is written. Needs no GPU.",
  .options = merge_options, .noptions = MERGE_NOPTS,
  .args = merge_args, .nargs = CMD_COUNT(merge_args),
  .exec = Merge_exec,
};
