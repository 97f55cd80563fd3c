/* A map from names to ints (open addressing, owned copies of the keys): what turns "is this
 * name among the n seen so far" from a scan into one probe, for tables of many metric names. */
#ifndef BENCHTOP_NAME_INDEX_H
#define BENCHTOP_NAME_INDEX_H

#include <stdbool.h>
#include <stddef.h>

typedef struct NameIndex {
  size_t cap;   /* slots, a power of two (0 before the first add) */
  size_t n;     /* names held */
  char **key;   /* NULL: an empty slot */
  int *value;
} NameIndex;

void NameIndex_init(NameIndex *ix);
void NameIndex_free(NameIndex *ix);
/* The value of name (the first len bytes of it), or -1 when absent. */
int NameIndex_findLen(const NameIndex *ix, const char *name, size_t len);
int NameIndex_find(const NameIndex *ix, const char *name);
/* Adds name with value; false (and nothing changed) when it is already there. */
bool NameIndex_add(NameIndex *ix, const char *name, int value);
/* The slot of an existing name's value (to count or update in place), NULL when absent. */
int *NameIndex_slot(NameIndex *ix, const char *name);

#endif
