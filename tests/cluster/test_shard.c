/* The slicing of sessions/shard.h: I/N and Slurm parsing, slices that cover every plan entry
 * exactly once, the plan hash, and the shard field of a session file (written, read back,
 * refused when it describes no shard). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"
#include "sessions/session.h"
#include "sessions/shard.h"
#include "common/util.h"

static void test_parse(void) {
  ShardSpec s;
  char err[256];
  CHECK(Shard_parse("1/1", &s, err, sizeof err) && s.index == 1 && s.count == 1);
  CHECK(Shard_parse("3/4", &s, err, sizeof err) && s.index == 3 && s.count == 4);
  const char *bad[] = {"0/4", "5/4", "1/0", "-1/4", "+1/4", " 1/4", "1/4 ", "1/", "/4", "1",
                       "a/b", "1/4/5", "1/100001", "", "9999999999/9999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    bool ok = Shard_parse(bad[i], &s, err, sizeof err);
    CHECK(!ok && err[0] && !strchr(err, '\n'));
    if (ok) fprintf(stderr, "accepted '%s'\n", bad[i]);
  }
}

static void slurm(const char *id, const char *min, const char *step, const char *count,
                  const char *max) {
  const char *names[] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP",
                         "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MAX"};
  const char *vals[] = {id, min, step, count, max};
  for (int i = 0; i < 5; i++) {
    if (vals[i]) setenv(names[i], vals[i], 1);
    else unsetenv(names[i]);
  }
}

static void test_slurm(void) {
  ShardSpec s;
  char err[256];
  slurm("0", "0", "1", "4", "3");
  CHECK(Shard_fromSlurm(&s, err, sizeof err) && s.index == 1 && s.count == 4);
  slurm("4", "1", NULL, "4", NULL); /* --array=1-4 */
  CHECK(Shard_fromSlurm(&s, err, sizeof err) && s.index == 4 && s.count == 4);
  slurm("7", "3", "2", NULL, "9"); /* --array=3-9:2, no COUNT: from MAX */
  CHECK(Shard_fromSlurm(&s, err, sizeof err) && s.index == 3 && s.count == 4);
  slurm("2", "2", "1", "1", "2"); /* a one-task array */
  CHECK(Shard_fromSlurm(&s, err, sizeof err) && s.index == 1 && s.count == 1);
  struct { const char *id, *min, *step, *count, *max, *want; } bad[] = {
    {NULL, "0", "1", "4", "3", "not set"},
    {"5", "1", "1", "3", "6", "evenly spaced"},  /* --array=1,5,6 */
    {"4", "3", "2", "4", "9", "evenly spaced"},  /* off the step */
    {"0", "1", "1", "4", "4", "evenly spaced"},  /* below MIN */
    {"x", "0", "1", "4", "3", "whole number"},
    {"1", "0", "1", "-4", "3", "whole number"},
    {"1", "0", "1", NULL, NULL, "COUNT"},
    {"1", "0", "1", "200000", NULL, "more than"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    slurm(bad[i].id, bad[i].min, bad[i].step, bad[i].count, bad[i].max);
    err[0] = '\0';
    CHECK(!Shard_fromSlurm(&s, err, sizeof err) && strstr(err, bad[i].want));
    if (!strstr(err, bad[i].want)) fprintf(stderr, "case %zu: %s\n", i, err);
  }
  slurm(NULL, NULL, NULL, NULL, NULL);
}

/* Every entry of every plan size lands in exactly one shard, and Shard_size counts them. */
static void test_slices(void) {
  int bad = 0;
  for (int total = 0; total <= 60; total++)
    for (int n = 1; n <= 12; n++) {
      int sum = 0;
      for (int i = 1; i <= n; i++) {
        ShardSpec s = {i, n};
        int mine = 0;
        for (int k = 0; k < total; k++) mine += Shard_owns(&s, k);
        bad += mine != Shard_size(&s, total);
        sum += mine;
      }
      for (int k = 0; k < total; k++) {
        int owners = 0;
        for (int i = 1; i <= n; i++) owners += Shard_owns(&(ShardSpec){i, n}, k);
        bad += owners != 1;
      }
      bad += sum != total;
    }
  CHECK(bad == 0);
  ShardSpec whole = {0, 0};
  CHECK(Shard_owns(&whole, 17) && Shard_size(&whole, 17) == 17);
}

static void test_hash(void) {
  Shape a = {.B = 2, .H = 8, .S = 512, .D = 64, .causal = false}, b = {.B = 2, .H = 8, .S = 512, .D = 64, .causal = true};
  RunOptions o;
  RunOptions_init(&o);
  o.reps = 100;
  o.seed = 1;
  uint64_t h1 = Shard_hashEntry(SHARD_HASH_SEED, "mma", "block_m=64", &a, &o, "default");
  CHECK(h1 == Shard_hashEntry(SHARD_HASH_SEED, "mma", "block_m=64", &a, &o, "default"));
  CHECK(h1 != Shard_hashEntry(SHARD_HASH_SEED, "mma", "block_m=64", &b, &o, "default"));
  CHECK(h1 != Shard_hashEntry(SHARD_HASH_SEED, "mma", "block_m=6", &a, &o, "4default"));
  o.seed = 2;
  CHECK(h1 != Shard_hashEntry(SHARD_HASH_SEED, "mma", "block_m=64", &a, &o, "default"));
  char buf[32];
  Shard_formatHash(0xabcULL, buf, sizeof buf);
  CHECK(strcmp(buf, "0000000000000abc") == 0);
}

static const char *session_with(const char *shard) {
  static char buf[1024];
  snprintf(buf, sizeof buf, "{\"schema\":\"%s\",\"shard\":%s,\"records\":[]}", SESSION_SCHEMA, shard);
  return buf;
}

static void test_json(void) {
  Session s, back;
  Session_init(&s);
  s.shard.spec = (ShardSpec){2, 4};
  s.shard.plan_size = 10;
  Shard_formatHash(0x1234abcdULL, s.shard.plan_hash, sizeof s.shard.plan_hash);
  Record r;
  Record_init(&r);
  Util_strlcpy(r.variant, "naive", sizeof r.variant);
  Util_strlcpy(r.host, "node07", sizeof r.host);
  r.plan_index = 5;
  r.shape = (Shape){.B = 1, .H = 1, .S = 64, .D = 64, .causal = false};
  Session_add(&s, &r);
  cJSON *j = Session_toJson(&s);
  char *text = cJSON_Print(j);
  cJSON_Delete(j);
  char err[512], where[256];
  CHECK(Session_parse(text, strlen(text), "t.json", &back, err, sizeof err));
  CHECK(Session_equal(&s, &back, where, sizeof where));
  CHECK(back.shard.spec.index == 2 && back.records[0].plan_index == 5 &&
        strcmp(back.records[0].host, "node07") == 0 && back.schema_version >= 1);
  free(text);
  Session_free(&back);
  Session_free(&s);
  const char *bad[] = {
    "{\"index\":5,\"count\":4,\"plan_size\":10,\"plan_hash\":\"0000000000000abc\"}",
    "{\"index\":0,\"count\":4,\"plan_size\":10,\"plan_hash\":\"0000000000000abc\"}",
    "{\"index\":1,\"count\":4,\"plan_size\":-1,\"plan_hash\":\"0000000000000abc\"}",
    "{\"index\":1,\"count\":4,\"plan_size\":10,\"plan_hash\":\"abc\"}",
    "{\"index\":1,\"count\":4,\"plan_size\":10,\"plan_hash\":\"000000000000ABCG\"}",
    "{\"index\":1,\"count\":4,\"plan_size\":10}",
    "{\"index\":1.5,\"count\":4,\"plan_size\":10,\"plan_hash\":\"0000000000000abc\"}",
    "[1,4]",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *t = session_with(bad[i]);
    bool ok = Session_parse(t, strlen(t), "bad.json", &back, err, sizeof err);
    CHECK(!ok && strstr(err, "shard"));
    if (ok) Session_free(&back);
    else if (!strstr(err, "shard")) fprintf(stderr, "%s\n", err);
  }
}

int main(void) {
  test_parse();
  test_slurm();
  test_slices();
  test_hash();
  test_json();
  return Check_done("shard");
}
