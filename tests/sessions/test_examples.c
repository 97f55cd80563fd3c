/* Every bundled example (each .json file in sessions/examples, recorded on a GPU) loads, saves
 * and reloads to an equal session, compared field by field. Skipped (77) while there are none. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/util.h"
#include "sessions/session.h"

/* Whether every member of a is in b with an equal value (arrays: same length, element-wise). */
static bool Json_subset(const cJSON *a, const cJSON *b, const char *path, char *at, size_t size) {
  if (cJSON_IsObject(a)) {
    if (!cJSON_IsObject(b)) goto differ;
    for (const cJSON *m = a->child; m; m = m->next) {
      char sub[512];
      snprintf(sub, sizeof sub, "%.400s.%.100s", path, m->string);
      const cJSON *n = cJSON_GetObjectItemCaseSensitive(b, m->string);
      if (!n) {
        snprintf(at, size, "%.400s (missing)", sub);
        return false;
      }
      if (!Json_subset(m, n, sub, at, size)) return false;
    }
    return true;
  }
  if (cJSON_IsArray(a)) {
    if (!cJSON_IsArray(b) || cJSON_GetArraySize(a) != cJSON_GetArraySize(b)) goto differ;
    int i = 0;
    for (const cJSON *x = a->child, *y = b->child; x; x = x->next, y = y->next, i++) {
      char sub[512];
      snprintf(sub, sizeof sub, "%.400s[%d]", path, i);
      if (!Json_subset(x, y, sub, at, size)) return false;
    }
    return true;
  }
  if (cJSON_Compare(a, b, true)) return true;
differ:
  snprintf(at, size, "%.400s", path[0] ? path : "the top level");
  return false;
}

static bool check_one(const char *path, const char *tmpdir) {
  Session a, b, c;
  char err[1024], where[256], out[4096];
  if (!Session_load(path, &a, err, sizeof err)) {
    fprintf(stderr, "FAIL load: %s\n", err);
    return false;
  }
  bool ok = a.nrecords > 0;
  if (!ok) fprintf(stderr, "FAIL %s: no records\n", path);
  snprintf(out, sizeof out, "%s/resaved.json", tmpdir);
  if (ok && !Session_save(&a, out, err, sizeof err)) {
    fprintf(stderr, "FAIL save: %s\n", err);
    ok = false;
  }
  if (ok && !Session_load(out, &b, err, sizeof err)) {
    fprintf(stderr, "FAIL reload: %s\n", err);
    ok = false;
  } else if (ok) {
    if (!Session_equal(&a, &b, where, sizeof where)) {
      fprintf(stderr, "FAIL %s: the reloaded session differs at %s\n", path, where);
      ok = false;
    }
    /* And a second save writes the same bytes: the form is stable. */
    char out2[4096];
    snprintf(out2, sizeof out2, "%s/resaved2.json", tmpdir);
    size_t l1 = 0, l2 = 0;
    char *t1 = NULL, *t2 = NULL;
    if (ok && Session_save(&b, out2, err, sizeof err)) {
      t1 = Util_readFile(out, &l1, 0);
      t2 = Util_readFile(out2, &l2, 0);
    }
    if (ok && (!t1 || !t2 || l1 != l2 || memcmp(t1, t2, l1) != 0)) {
      fprintf(stderr, "FAIL %s: saving twice gives different files\n", path);
      ok = false;
    }
    /* A file of today's schema is re-written equal: every member it has comes back with the
     * same value (shapes, derived floors included); only optional members it lacks are added. */
    char *t0 = Util_readFile(path, NULL, 0);
    cJSON *orig = t0 ? cJSON_Parse(t0) : NULL, *again = t1 ? cJSON_Parse(t1) : NULL;
    char at[512] = "";
    if (ok && (!orig || !again || !Json_subset(orig, again, "", at, sizeof at))) {
      fprintf(stderr, "FAIL %s: re-writing it changes %s\n", path, at[0] ? at : "the file");
      ok = false;
    }
    cJSON_Delete(orig);
    cJSON_Delete(again);
    free(t0);
    free(t1);
    free(t2);
    if (ok && Session_load(out2, &c, err, sizeof err)) {
      ok = Session_equal(&a, &c, where, sizeof where);
      Session_free(&c);
    }
    unlink(out2);
    Session_free(&b);
  }
  unlink(out);
  if (ok) printf("ok   %s: %d records\n", path, a.nrecords);
  Session_free(&a);
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_examples EXAMPLES_DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  char tmpdir[] = "/tmp/benchtop-examples-XXXXXX";
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  struct dirent **names = NULL;
  int n = scandir(dir, &names, NULL, alphasort);
  int checked = 0, failed = 0;
  for (int i = 0; i < n; i++) {
    size_t len = strlen(names[i]->d_name);
    if (len > 5 && strcmp(names[i]->d_name + len - 5, ".json") == 0) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
      checked++;
      failed += !check_one(path, tmpdir);
    }
    free(names[i]);
  }
  free(names);
  rmdir(tmpdir);
  if (checked == 0) {
    printf("no examples yet in %s\n", dir);
    return 77;
  }
  printf("%d examples, %d failed\n", checked, failed);
  return failed ? 1 : 0;
}
