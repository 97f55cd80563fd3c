/* Open-addressing string map (see name_index.h). */
#include "common/name_index.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

void NameIndex_init(NameIndex *ix) { memset(ix, 0, sizeof *ix); }

void NameIndex_free(NameIndex *ix) {
  for (size_t i = 0; i < ix->cap; i++) free(ix->key[i]);
  free(ix->key);
  free(ix->value);
  memset(ix, 0, sizeof *ix);
}

static size_t NameIndex_hash(const char *name, size_t len) {
  return (size_t)Util_hash64(name, len, 0);
}

/* The slot holding name, or the empty slot where it would go (cap > 0). */
static size_t NameIndex_probe(const NameIndex *ix, const char *name, size_t len) {
  size_t mask = ix->cap - 1, i = NameIndex_hash(name, len) & mask;
  while (ix->key[i] && !(strncmp(ix->key[i], name, len) == 0 && ix->key[i][len] == '\0'))
    i = (i + 1) & mask;
  return i;
}

int NameIndex_findLen(const NameIndex *ix, const char *name, size_t len) {
  if (ix->n == 0) return -1;
  size_t i = NameIndex_probe(ix, name, len);
  return ix->key[i] ? ix->value[i] : -1;
}

int NameIndex_find(const NameIndex *ix, const char *name) {
  return NameIndex_findLen(ix, name, strlen(name));
}

int *NameIndex_slot(NameIndex *ix, const char *name) {
  if (ix->n == 0) return NULL;
  size_t i = NameIndex_probe(ix, name, strlen(name));
  return ix->key[i] ? &ix->value[i] : NULL;
}

/* Doubles the table (at most half full keeps probes short). */
static void NameIndex_grow(NameIndex *ix) {
  NameIndex bigger = {.cap = ix->cap ? ix->cap * 2 : 64};
  bigger.key = Util_xcalloc(bigger.cap, sizeof *bigger.key);
  bigger.value = Util_xcalloc(bigger.cap, sizeof *bigger.value);
  for (size_t i = 0; i < ix->cap; i++) {
    if (!ix->key[i]) continue;
    size_t at = NameIndex_probe(&bigger, ix->key[i], strlen(ix->key[i]));
    bigger.key[at] = ix->key[i];
    bigger.value[at] = ix->value[i];
  }
  bigger.n = ix->n;
  free(ix->key);
  free(ix->value);
  *ix = bigger;
}

bool NameIndex_add(NameIndex *ix, const char *name, int value) {
  if (2 * (ix->n + 1) > ix->cap) NameIndex_grow(ix);
  size_t i = NameIndex_probe(ix, name, strlen(name));
  if (ix->key[i]) return false;
  ix->key[i] = Util_xstrdup(name);
  ix->value[i] = value;
  ix->n++;
  return true;
}
