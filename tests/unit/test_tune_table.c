/* The tuned table without a GPU: what it stores and gives back, a malformed or foreign table left alone,
 * --knob auto's choices, and the tables shipped in the source tree (argv[1]). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "bench/plan.h"
#include "bench/tune/tune_table.h"
#include "bench/tune/tune_transfer.h"
#include "check.h"
#include "common/util.h"
#include "kernels/jit.h"
#include "tune_fixtures.h"


static void test_entry(TunedEntry *e, const char *variant, const char *shape, const char *knobs,
                       double p50) {
  memset(e, 0, sizeof *e);
  Util_strlcpy(e->device, "NVIDIA H200", sizeof e->device);
  e->cc = 90;
  e->driver = 13000;
  Util_strlcpy(e->variant, variant, sizeof e->variant);
  CHECK(Jit_sourceHash(Registry_find(variant), e->source_hash, sizeof e->source_hash));
  e->shape = test_shape(shape);
  Util_strlcpy(e->knobs, knobs, sizeof e->knobs);
  e->p50 = p50;
  Util_strlcpy(e->clock, "kernel", sizeof e->clock);
  Util_strlcpy(e->created, "2026-11-25T10:00:00Z", sizeof e->created);
}

/* The tuned table: stored entries come back for their device, source, shape and conditions
 * only; a newer tune replaces the older entry; a malformed table is left alone, not replaced;
 * --knob auto takes the tuned knobs, keeps the ones given with --knob, or says why not. */

/* A tuned table at path holding one H200 entry (warm, p50 1 us) of the given source hash. */
static bool test_oneEntryTable(const char *path, const char *variant, const char *shape,
                               const char *knobs, const char *hash) {
  char *text = Util_asprintf(
      "{\"schema\": \"benchtop.tuned/1\", \"entries\": [{\"device\": \"NVIDIA H200\", \"cc\": 90,"
      " \"driver\": 12000, \"variant\": \"%s\", \"source_hash\": \"%s\", \"shape\": \"%s\","
      " \"cold_l2\": false, \"graph\": false, \"knobs\": \"%s\", \"p50\": 1.0}]}",
      variant, hash, shape, knobs);
  char err[256];
  bool ok = Util_writeFileAtomic(path, text, strlen(text), err, sizeof err);
  free(text);
  return ok;
}

/* The table's name on something that is not a regular file (a FIFO, a directory, a link to
 * /dev/null) or a name too long: the store refuses, and nothing there is renamed or replaced. */
static void test_notRegularTargets(const char *dir, const TunedEntry *e) {
  char target[4300], note[600], err[600], aside[4400];
  const char *kinds[] = {"fifo", "dir", "link"};
  for (int k = 0; k < 3; k++) {
    snprintf(target, sizeof target, "%s/%s.json", dir, kinds[k]);
    CHECK(k == 0 ? mkfifo(target, 0600) == 0 : k == 1 ? mkdir(target, 0700) == 0
                                                      : symlink("/dev/null", target) == 0);
    setenv(TUNED_PATH_ENV, target, 1);
    CHECK(!TunedTable_store(e, 1, note, sizeof note, err, sizeof err) && strstr(err, "not a regular file"));
    struct stat st;
    CHECK(lstat(target, &st) == 0 && (k == 0 ? S_ISFIFO(st.st_mode) : k == 1 ? S_ISDIR(st.st_mode)
                                                                             : S_ISLNK(st.st_mode)));
    snprintf(aside, sizeof aside, "%s.lock", target);
    CHECK(access(aside, F_OK) != 0); /* not even a lock file beside it */
    CHECK(k == 1 ? rmdir(target) == 0 : unlink(target) == 0);
  }
  char *longname = Util_xcalloc(5000, 1);
  memset(longname, 'a', 4999);
  longname[0] = '/';
  setenv(TUNED_PATH_ENV, longname, 1);
  CHECK(!TunedTable_store(e, 1, note, sizeof note, err, sizeof err) && strstr(err, "longer than"));
  free(longname);
}

/* test_table's world: a user table under dir, a folder for shipped ones, an H200 (the user's
 * tunes) and an H100 (the same chip, another driver), and the shapes the lookups ask about. */
typedef struct TableTest {
  char dir[32], path[4200], sdir[4200], spath[4300];
  DeviceInfo d, h100;
  RunOptions warm;
  const Variant *fa3, *mma;
  Shape small, causal, big;
  TunedEntry e[2];
} TableTest;

/* The user's table: stored, looked up under other conditions and devices, replaced. */
static void test_tableUser(TableTest *t) {
  const DeviceInfo d = t->d;
  const RunOptions warm = t->warm;
  const Variant *fa3 = t->fa3, *mma = t->mma;
  const Shape small = t->small;
  const char *path = t->path;
  char note[600], err[600];
  TunedEntry *e = t->e, got;
  char why[400];
  CHECK(TunedTable_lookup(&d, fa3, &small, &warm, &got, why, sizeof why) == 0 &&
        strstr(why, "nothing tuned"));
  test_entry(&e[0], "fa3", "2x8x512x64", "block_m=64,block_n=128,stages=2,kv_split=2,sched=plain,persist=0,exp_poly=0", 5.8);
  test_entry(&e[1], "mma", "2x8x512x64", "block_m=64,block_n=128,warps=4,stages=2,split=1", 8.1);
  CHECK(TunedTable_store(e, 2, note, sizeof note, err, sizeof err) && note[0] == 0);
  CHECK(TunedTable_lookup(&d, fa3, &small, &warm, &got, why, sizeof why) == 1 && got.p50 == 5.8 &&
        strcmp(got.knobs, e[0].knobs) == 0);
  /* Other conditions: nothing was tuned with a cold L2, so the warm entry, said so
   * (protocol_distance); another device, another driver: not this entry. */
  RunOptions cold = warm;
  cold.cold_l2 = true;
  CHECK(TunedTable_lookup(&d, fa3, &small, &cold, &got, why, sizeof why) == 1 &&
        got.protocol_distance == 1 && got.distance == 0 && !got.cold_l2);
  RunOptions cold_graph = cold;
  cold_graph.graph = true;
  CHECK(TunedTable_lookup(&d, fa3, &small, &cold_graph, &got, why, sizeof why) == 1 &&
        got.protocol_distance == 2);
  /* Another shape: the nearest tuned one's knobs (here the only one, causal against not). */
  Shape causal = t->causal;
  CHECK(TunedTable_lookup(&d, fa3, &causal, &warm, &got, why, sizeof why) == 1 &&
        got.distance == 0.5 && !got.shipped && strcmp(got.table, "tuned.json") == 0);
  /* Another problem of the same features (1x16 against 2x8: the same heads, tiles and waves) is
   * a transfer, never "tuned at this shape". */
  Shape same = test_shape("1x16x512x64");
  CHECK(TunedTable_lookup(&d, fa3, &same, &warm, &got, why, sizeof why) == 1 && got.distance > 0 &&
        got.distance <= TUNED_SAME_FEATURES);
  PlanEntry ps = test_planEntry(fa3, same, warm, PLAN_AUTO_ASKED);
  char same_note[1][RECORD_AUTO_NOTE_MAX];
  TunedTable_resolve(&ps, 1, &d, same_note);
  CHECK(strstr(same_note[0], "nearest tuned shape 2x8x512x64 (the same features)") &&
        !strstr(same_note[0], "tuned at this shape"));
  DeviceInfo other = d;
  other.driver_version = 12080;
  CHECK(TunedTable_lookup(&other, fa3, &small, &warm, &got, why, sizeof why) == 0 && strstr(why, "driver"));
  /* A newer tune of the same slot replaces the entry; the other variant's stays. */
  test_entry(&e[0], "fa3", "2x8x512x64", "block_m=128,block_n=128,stages=2,kv_split=1,sched=pingpong,persist=1,exp_poly=0", 5.5);
  CHECK(TunedTable_store(e, 1, note, sizeof note, err, sizeof err));
  CHECK(TunedTable_lookup(&d, fa3, &small, &warm, &got, why, sizeof why) == 1 && got.p50 == 5.5);
  CHECK(TunedTable_lookup(&d, mma, &small, &warm, &got, why, sizeof why) == 1 && got.p50 == 8.1);
  /* The whole problem is the key: a GQA decode bf16 entry is stored canonically and found at
   * its problem; the fp16 one takes it as the nearest (0.5), not the prefill entry. */
  test_entry(&e[1], "mma", "8x32/8x1/8192x128:bf16", "block_m=64,block_n=64,warps=4,stages=2,split=1", 41.0);
  CHECK(TunedTable_store(&e[1], 1, note, sizeof note, err, sizeof err));
  char table_path[4096];
  CHECK(TunedTable_path(table_path, sizeof table_path));
  char *table_text = Util_readFile(table_path, NULL, 0);
  CHECK(table_text && strstr(table_text, "\"8x32/8x1/8192x128:bf16\""));
  free(table_text);
  Shape decode = test_shape("8x32/8x1/8192x128:bf16"), decode16 = test_shape("8x32/8x1/8192x128");
  CHECK(TunedTable_lookup(&d, mma, &decode, &warm, &got, why, sizeof why) == 1 && got.p50 == 41.0 &&
        got.distance == 0);
  CHECK(TunedTable_lookup(&d, mma, &decode16, &warm, &got, why, sizeof why) == 1 && got.p50 == 41.0 &&
        got.distance == 0.5);
  CHECK(TunedTable_lookup(&d, mma, &small, &warm, &got, why, sizeof why) == 1 && got.p50 == 8.1);
  size_t len = 0;
  char *text = Util_readFile(path, &len, 0);
  CHECK(text && strstr(text, TUNED_SCHEMA) && strstr(text, "block_m=64,block_n=128,stages=2") == NULL);
  free(text);
}

/* A cold-L2 run where only warm entries exist takes the warm entry, its note saying so; a
 * cold-L2 entry, once there, wins over warm ones however near, and is no fallback. */
static void test_tableProtocol(const TableTest *t) {
  char note[1][RECORD_AUTO_NOTE_MAX], knobs[160], err[600], stored[600];
  RunOptions cold = t->warm;
  cold.cold_l2 = true;
  PlanEntry pc = test_planEntry(t->mma, t->small, cold, PLAN_AUTO_ASKED);
  TunedTable_resolve(&pc, 1, &t->d, note);
  CHECK(Util_startsWith(note[0], "auto from table tuned.json: tuned at this shape, p50 8.1 us") &&
        strstr(note[0], "; tuned with a warm L2 and stream launches: nothing was tuned with a "
                        "cold L2 and stream launches"));
  TunedEntry ce;
  test_entry(&ce, "mma", "2x8x512x64:causal", "block_m=64,block_n=64,warps=4,stages=2,split=1", 9.0);
  ce.cold_l2 = true;
  CHECK(TunedTable_store(&ce, 1, stored, sizeof stored, err, sizeof err));
  pc = test_planEntry(t->mma, t->small, cold, PLAN_AUTO_ASKED);
  TunedTable_resolve(&pc, 1, &t->d, note);
  Registry_formatKnobs(t->mma, &pc.knobs, knobs, sizeof knobs);
  CHECK(strcmp(knobs, ce.knobs) == 0 &&
        strstr(note[0], "nearest tuned shape 2x8x512x64:causal (distance 0.5), p50 9 us there") &&
        !strstr(note[0], "nothing was tuned with"));
  /* A warm run still takes the warm entry. */
  PlanEntry pw = test_planEntry(t->mma, t->small, t->warm, PLAN_AUTO_ASKED);
  TunedTable_resolve(&pw, 1, &t->d, note);
  CHECK(Util_startsWith(note[0], "auto from table tuned.json: tuned at this shape, p50 8.1 us") &&
        !strstr(note[0], "nothing was tuned with"));
}

static void test_tableAuto(const TableTest *t) {
  const DeviceInfo d = t->d;
  const RunOptions warm = t->warm;
  const Variant *mma = t->mma;
  const Shape small = t->small, causal = t->causal;
  char err[600];
  /* --knob auto: tuned knobs, except the knob the user gave. */
  PlanEntry pe[2] = {test_planEntry(mma, small, warm, PLAN_AUTO_ASKED)};
  char spec[] = "stages=3";
  Registry_applyKnobs(mma, spec, &pe[0].knobs, false, err, sizeof err);
  pe[0].knobs_given = 1u << 3; /* stages */
  pe[1] = pe[0];
  pe[1].shape = causal;
  pe[1].knobs_given = 0;
  char notes[2][RECORD_AUTO_NOTE_MAX];
  TunedTable_resolve(pe, 2, &d, notes);
  char knobs[160];
  Registry_formatKnobs(mma, &pe[0].knobs, knobs, sizeof knobs);
  CHECK(strcmp(knobs, "block_m=64,block_n=128,warps=4,stages=3,split=1") == 0);
  CHECK(Util_startsWith(notes[0], "auto from table tuned.json: tuned at this shape, p50 8.1 us") &&
        TunedTable_noteIsTuned(notes[0]));
  Registry_formatKnobs(mma, &pe[1].knobs, knobs, sizeof knobs);
  CHECK(strcmp(knobs, "block_m=64,block_n=128,warps=4,stages=2,split=1") == 0 &&
        Util_startsWith(notes[1], "auto from table tuned.json: nearest tuned shape 2x8x512x64 (distance 0.5), p50 8.1 us there"));
  test_tableProtocol(t);
}

static void test_tableEdited(const TableTest *t) {
  const DeviceInfo d = t->d;
  const RunOptions warm = t->warm;
  const Variant *fa3 = t->fa3;
  const Shape small = t->small;
  char err[600];
  TunedEntry got;
  char why[400];
  /* A kernel edit invalidates: the same lookup through an edited copy of fa3's file. */
  char *edited = Util_asprintf("%s\n// an edit\n", fa3->text);
  Variant *fa3_edited = Registry_parseFile("/tmp/fa3.cu", edited, err, sizeof err);
  CHECK(fa3_edited != NULL);
  if (fa3_edited)
    CHECK(TunedTable_lookup(&d, fa3_edited, &small, &warm, &got, why, sizeof why) == 0 &&
          strstr(why, "source changed"));
  Registry_freeVariant(fa3_edited);
  free(edited);
}

static void test_tableShippedLookup(const TableTest *t) {
  const DeviceInfo d = t->d;
  const RunOptions warm = t->warm;
  const Variant *fa3 = t->fa3;
  const Shape small = t->small;
  char err[600];
  const char *sdir = t->sdir, *spath = t->spath;
  const TunedEntry *e = t->e;
  TunedEntry got;
  char why[400];
  /* A shipped table (kernels/tuned/): for every device of its chip (an H100 here, the table
   * tuned on an H200: both GH100), under any driver; its entries say they were shipped. */
  CHECK(mkdir(sdir, 0755) == 0);
  DeviceInfo h100 = t->h100;
  Shape big = t->big;
  CHECK(TunedTable_lookup(&h100, fa3, &big, &warm, &got, why, sizeof why) == 0 &&
        strstr(why, "nothing tuned on this NVIDIA H100 80GB HBM3 (chip GH100)"));
  const char *hash = e[0].source_hash;
  char *shipped = Util_asprintf(
      "{\"schema\": \"benchtop.tuned/1\", \"entries\": [{\"device\": \"NVIDIA H200\", \"cc\": 90,"
      " \"driver\": 12000, \"variant\": \"fa3\", \"source_hash\": \"%s\", \"shape\": \"8x16x4096x64\","
      " \"cold_l2\": false, \"graph\": false, \"knobs\": \"%s\", \"p50\": 1130.0}]}", hash, e[0].knobs);
  CHECK(Util_writeFileAtomic(spath, shipped, strlen(shipped), err, sizeof err));
  free(shipped);
  CHECK(TunedTable_lookup(&h100, fa3, &big, &warm, &got, why, sizeof why) == 1 && got.shipped &&
        got.p50 == 1130.0 && got.distance == 0 && strcmp(got.table, "nvidia-h200.json") == 0 &&
        strcmp(got.chip, "GH100") == 0 && !got.stale);
  CHECK(TunedTable_exists());
  /* Nearest-shape resolution: half the sequence is 1 away; a second entry at the small shape
   * is nearer to 4x8x512x64 (1: twice the heads) than the big one (2 + 3). */
  Shape half = test_shape("8x16x2048x64"), small4 = test_shape("4x8x512x64");
  CHECK(TunedTable_lookup(&h100, fa3, &half, &warm, &got, why, sizeof why) == 1 && got.shipped &&
        got.distance == 1.0 && got.p50 == 1130.0);
  CHECK(TunedTable_lookup(&h100, fa3, &small4, &warm, &got, why, sizeof why) == 1 && got.p50 == 1130.0);
  char spath2[4300];
  snprintf(spath2, sizeof spath2, "%s/GH100-small.json", sdir);
  char *second = Util_asprintf(
      "{\"schema\": \"benchtop.tuned/1\", \"chip\": \"GH100\", \"entries\": [{\"device\": \"NVIDIA H100 80GB HBM3\","
      " \"chip\": \"GH100\", \"cc\": 90, \"driver\": 13000, \"variant\": \"fa3\", \"source_hash\": \"%s\","
      " \"shape\": \"2x8x512x64\", \"knobs\": \"%s\", \"p50\": 5.54}]}", e[0].source_hash,
      "block_m=64,block_n=128,stages=2,kv_split=1,sched=plain,persist=0,exp_poly=8");
  CHECK(Util_writeFileAtomic(spath2, second, strlen(second), err, sizeof err));
  free(second);
  CHECK(TunedTable_lookup(&h100, fa3, &small4, &warm, &got, why, sizeof why) == 1 && got.p50 == 5.54 &&
        got.distance == 1.0 && strcmp(got.table, "GH100-small.json") == 0);
  CHECK(TunedTable_distance(&small4, &small4) == 0 && TunedTable_distance(&small4, &big) == 5.0);
  /* GQA of 4 query heads per KV head, 4x the keys per query and another dtype each move away. */
  Shape wider = small4;
  wider.Hkv = small4.H / 4;
  CHECK(TunedTable_distance(&small4, &wider) == 2.0);
  wider.Skv = small4.S * 4;
  wider.dtype = SHAPE_BF16;
  CHECK(TunedTable_distance(&small4, &wider) == 4.5 && TunedTable_distance(&wider, &small4) == 4.5);
  /* The user's own entry at the same distance wins over a shipped one; at a larger one not. */
  CHECK(TunedTable_lookup(&d, fa3, &small, &warm, &got, why, sizeof why) == 1 && !got.shipped);
  CHECK(TunedTable_lookup(&d, fa3, &big, &warm, &got, why, sizeof why) == 1 && got.shipped);
  unlink(spath2);
  /* At one shape, an entry of an older kernel source ranks after one of this source, listed
   * first or not; of two of this source, the asking device's own comes first (H100 and H200). */
  char off[4400];
  snprintf(off, sizeof off, "%s.off", spath);
  CHECK(rename(spath, off) == 0); /* only the entries below, in the order written */
  char *both = Util_asprintf(
      "{\"schema\": \"benchtop.tuned/1\", \"chip\": \"GH100\", \"entries\": ["
      "{\"device\": \"NVIDIA H100 80GB HBM3\", \"chip\": \"GH100\", \"cc\": 90, \"driver\": 13000,"
      " \"variant\": \"fa3\", \"source_hash\": \"00000000000000aa\", \"shape\": \"8x16x4096x64\", \"knobs\": \"%s\", \"p50\": 999},"
      "{\"device\": \"NVIDIA H200\", \"chip\": \"GH100\", \"cc\": 90, \"driver\": 13000,"
      " \"variant\": \"fa3\", \"source_hash\": \"%s\", \"shape\": \"8x16x4096x64\", \"knobs\": \"%s\", \"p50\": 888}%s]}",
      e[0].knobs, hash, e[0].knobs, "");
  CHECK(Util_writeFileAtomic(spath2, both, strlen(both), err, sizeof err));
  CHECK(TunedTable_lookup(&h100, fa3, &big, &warm, &got, why, sizeof why) == 1 && got.p50 == 888 && !got.stale);
  free(both);
  char own[600];
  snprintf(own, sizeof own, ",{\"device\": \"NVIDIA H100 80GB HBM3\", \"chip\": \"GH100\", \"cc\": 90, \"driver\": 13000,"
           " \"variant\": \"fa3\", \"source_hash\": \"%s\", \"shape\": \"8x16x4096x64\", \"knobs\": \"%s\", \"p50\": 777}",
           hash, e[0].knobs);
  both = Util_asprintf(
      "{\"schema\": \"benchtop.tuned/1\", \"chip\": \"GH100\", \"entries\": ["
      "{\"device\": \"NVIDIA H200\", \"chip\": \"GH100\", \"cc\": 90, \"driver\": 13000,"
      " \"variant\": \"fa3\", \"source_hash\": \"%s\", \"shape\": \"8x16x4096x64\", \"knobs\": \"%s\", \"p50\": 888}%s]}",
      hash, e[0].knobs, own);
  CHECK(Util_writeFileAtomic(spath2, both, strlen(both), err, sizeof err));
  CHECK(TunedTable_lookup(&h100, fa3, &big, &warm, &got, why, sizeof why) == 1 && got.p50 == 777);
  free(both);
  unlink(spath2);
  CHECK(rename(off, spath) == 0);
  int stale = -1;
  CHECK(TunedTable_checkShipped(sdir, &stale, err, sizeof err) == 1 && stale == 0);
}

static void test_tableShippedResolve(const TableTest *t) {
  const RunOptions warm = t->warm;
  const Variant *fa3 = t->fa3;
  const Shape causal = t->causal, big = t->big;
  DeviceInfo h100 = t->h100;
  const char *sdir = t->sdir, *spath = t->spath, *hash = t->e[0].source_hash;
  const TunedEntry *e = t->e;
  TunedEntry got;
  char why[400], err[600], knobs[160];
  int stale = -1;
  /* A variant given no knob takes the shipped knobs where there are some; elsewhere its
   * defaults, unremarked. */
  PlanEntry implicit[2] = {test_planEntry(fa3, big, warm, PLAN_AUTO_IF_TUNED)};
  implicit[1] = implicit[0];
  implicit[1].shape = causal;
  char inotes[2][RECORD_AUTO_NOTE_MAX], dflt[160];
  /* The run ignores no table: implicit[1] stands on a GPU of an unknown chip. */
  DeviceInfo unknown = h100;
  Util_strlcpy(unknown.name, "scripted test worker (no GPU)", sizeof unknown.name);
  TunedTable_resolve(implicit, 1, &h100, inotes);
  TunedTable_resolve(implicit + 1, 1, &unknown, inotes + 1);
  Registry_formatKnobs(fa3, &implicit[0].knobs, knobs, sizeof knobs);
  CHECK(strcmp(knobs, e[0].knobs) == 0 &&
        Util_startsWith(inotes[0], "auto from table nvidia-h200.json (shipped): tuned at this shape, p50 1130 us"));
  KnobValues fa3_defaults;
  Registry_defaults(fa3, &fa3_defaults);
  Registry_formatKnobs(fa3, &fa3_defaults, dflt, sizeof dflt);
  Registry_formatKnobs(fa3, &implicit[1].knobs, knobs, sizeof knobs);
  CHECK(strcmp(knobs, dflt) == 0 && inotes[1][0] == '\0');
  /* A broken file beside it: the good one still counts; the check names the broken one. */
  char bpath[4300];
  snprintf(bpath, sizeof bpath, "%s/broken.json", sdir);
  CHECK(Util_writeFileAtomic(bpath, "{\"schema\": 1}", 13, err, sizeof err));
  CHECK(TunedTable_lookup(&h100, fa3, &big, &warm, &got, why, sizeof why) == 1 && got.shipped);
  CHECK(TunedTable_checkShipped(sdir, &stale, err, sizeof err) == -1 && strstr(err, "broken.json"));
  /* --knob auto on a GPU of an unknown chip: the defaults, and a note that says why. */
  PlanEntry unk = test_planEntry(fa3, big, warm, PLAN_AUTO_ASKED);
  TunedTable_resolve(&unk, 1, &unknown, inotes);
  Registry_formatKnobs(fa3, &unk.knobs, knobs, sizeof knobs);
  CHECK(strcmp(knobs, dflt) == 0 && Util_startsWith(inotes[0], "defaults: nothing tuned on this "
        "scripted test worker (no GPU) (its chip is unknown, so no shipped table applies)"));
  /* Entries the registry would refuse: an unknown variant, knobs refused at the shape. */
  CHECK(test_oneEntryTable(bpath, "fa4", "8x16x4096x64", "block_m=64", hash));
  CHECK(TunedTable_checkShipped(sdir, &stale, err, sizeof err) == -1 && strstr(err, "no such variant"));
  CHECK(test_oneEntryTable(bpath, "fa3", "8x16x4096x128", "block_m=128,block_n=176,stages=4", hash));
  CHECK(TunedTable_checkShipped(sdir, &stale, err, sizeof err) == -1 && strstr(err, "entries[0] (fa3)"));
  /* ...and --knob auto there never runs them: a valid neighbour's knobs or the defaults. */
  Shape big128 = test_shape("8x16x4096x128");
  PlanEntry asked = test_planEntry(fa3, big128, warm, PLAN_AUTO_ASKED);
  TunedTable_resolve(&asked, 1, &h100, inotes);
  Registry_formatKnobs(fa3, &asked.knobs, knobs, sizeof knobs);
  CHECK(strstr(knobs, "block_n=176") == NULL &&
        (Util_startsWith(inotes[0], "defaults: the tuned knobs of fa3 are no longer valid") ||
         strstr(inotes[0], "nearest tuned shape 8x16x4096x64")));
  unlink(bpath);
  /* An edited source (an edited copy of fa3's file): the shipped entry stays the default (as a
   * declared default would), and says it was tuned for an older source; the check counts it
   * stale. */
  char *edited = Util_asprintf("%s\n// another edit\n", fa3->text);
  Variant *fa3_new = Registry_parseFile("/tmp/fa3.cu", edited, err, sizeof err);
  CHECK(fa3_new != NULL);
  if (fa3_new) {
    CHECK(TunedTable_lookup(&h100, fa3_new, &big, &warm, &got, why, sizeof why) == 1 && got.shipped &&
          got.stale);
    PlanEntry edited_entry = implicit[0];
    edited_entry.variant = fa3_new;
    TunedTable_resolve(&edited_entry, 1, &h100, inotes);
    CHECK(strstr(inotes[0], "older kernel source") != NULL);
  }
  Registry_freeVariant(fa3_new);
  free(edited);
  unlink(spath);
  rmdir(sdir);
  unsetenv("BENCHTOP_SHIPPED_TUNED");
}

static void test_tableMalformed(const TableTest *t) {
  const DeviceInfo d = t->d;
  const RunOptions warm = t->warm;
  const Variant *fa3 = t->fa3;
  const Shape small = t->small;
  char err[600];
  const char *path = t->path;
  const TunedEntry *e = t->e;
  TunedEntry got;
  char why[400], note[600];
  size_t len = 0;
  /* A malformed table: lookups say so; a store refuses and leaves it exactly as it was (it may
   * not be ours to rename or replace). */
  const char junk[] = "{\"schema\": \"benchtop.tuned/1\", \"entries\": [{\"device\": 3}]}";
  CHECK(Util_writeFileAtomic(path, junk, strlen(junk), err, sizeof err));
  CHECK(TunedTable_lookup(&d, fa3, &small, &warm, &got, why, sizeof why) == -1 && strstr(why, "malformed"));
  CHECK(!TunedTable_store(e, 1, note, sizeof note, err, sizeof err) && strstr(err, "nothing written"));
  char *kept = Util_readFile(path, &len, 0);
  CHECK(kept && strcmp(kept, junk) == 0);
  free(kept);
}

static void test_table(void) {
  TableTest t = {.dir = "/tmp/benchtop-tune-XXXXXX"};
  CHECK(mkdtemp(t.dir) != NULL);
  snprintf(t.path, sizeof t.path, "%s/sub/tuned.json", t.dir);
  setenv(TUNED_PATH_ENV, t.path, 1);
  snprintf(t.sdir, sizeof t.sdir, "%s/shipped", t.dir); /* none shipped until the shipped part */
  snprintf(t.spath, sizeof t.spath, "%s/nvidia-h200.json", t.sdir);
  setenv("BENCHTOP_SHIPPED_TUNED", t.sdir, 1);
  Device_init(&t.d);
  Util_strlcpy(t.d.name, "NVIDIA H200", sizeof t.d.name);
  t.d.cc_major = 9;
  t.d.cc_minor = 0;
  t.d.driver_version = 13000;
  t.h100 = t.d;
  Util_strlcpy(t.h100.name, "NVIDIA H100 80GB HBM3", sizeof t.h100.name);
  t.h100.driver_version = 12080;
  RunOptions_init(&t.warm);
  t.fa3 = Registry_find("fa3");
  t.mma = Registry_find("mma");
  t.small = test_shape("2x8x512x64");
  t.causal = test_shape("2x8x512x64:causal");
  t.big = test_shape("8x16x4096x64");
  test_tableUser(&t);
  test_tableAuto(&t);
  test_tableEdited(&t);
  test_tableShippedLookup(&t);
  test_tableShippedResolve(&t);
  test_tableMalformed(&t);
  test_notRegularTargets(t.dir, t.e);
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", t.dir);
  CHECK(system(cmd) == 0);
  unsetenv(TUNED_PATH_ENV);
}

/* The tables shipped in the source tree: every entry valid; stale ones are said. */
static void test_shipped_tree(const char *dir) {
  int stale = 0;
  char err[600];
  int n = TunedTable_checkShipped(dir, &stale, err, sizeof err);
  if (n < 0) printf("shipped tuned tables: %s\n", err);
  CHECK(n >= 0);
  printf("shipped tuned tables in %s: %d entries, %d for an older kernel source\n", dir, n, stale);
  /* An entry measured on an older source may lose anything on this one: measure it again
   * (tune-table, docs/tuning.md) before the kernel change lands. */
  CHECK(stale == 0);
}

/* The transfer rules' distances: nearest is the table's; feature counts tiles per SM wave,
 * saturating past ~30 waves, where nearest counts every doubling of B*H. */
static void test_transfer(void) {
  Shape a = test_shape("2x8x512x64"), b = test_shape("4x8x512x64:causal");
  Shape big = test_shape("64x32x8192x64"), bigger = test_shape("128x32x8192x64");
  CHECK(Transfer_distance(TRANSFER_NEAREST, &a, &b, 132) == TunedTable_distance(&a, &b));
  CHECK(Transfer_distance(TRANSFER_FEATURE, &a, &a, 132) == 0);
  CHECK(fabs(Transfer_distance(TRANSFER_FEATURE, &a, &b, 132) - 1.5) < 1e-5);
  /* Past ~30 waves the features are equal; the shapes' own distance (a millionth) still orders. */
  double far = Transfer_distance(TRANSFER_FEATURE, &big, &bigger, 132);
  CHECK(TunedTable_distance(&big, &bigger) == 1 && far > 0 && far < 1e-5);
  TransferRule r;
  CHECK(TransferRule_parse("best-of-k", &r) && r == TRANSFER_BEST_OF_K && !TransferRule_parse("near", &r));
  CHECK(strcmp(TransferRule_name(TRANSFER_FEATURE), "feature") == 0);
}

int main(int argc, char **argv) {
  if (argc > 1) test_shipped_tree(argv[1]);
  test_table();
  test_transfer();
  return Check_done("test_tune_table");
}
