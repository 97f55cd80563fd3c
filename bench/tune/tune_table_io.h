/* The tuned table's file format, shared by the files of bench/tune_table*.c (not for other
 * layers: they go through bench/tune/tune_table.h). */
#ifndef BENCHTOP_TUNE_TABLE_IO_H
#define BENCHTOP_TUNE_TABLE_IO_H

#include <cjson/cJSON.h>

#include "bench/tune/tune_table.h"

/* Reads a table (info: its header, when not NULL). 1: read (maybe empty); 0: no file; -1:
 * unreadable or malformed (why). */
int TunedTable_read(const char *path, TunedEntry **out, int *n, TunedTableInfo *info, char *why,
                    size_t whysize);
cJSON *TunedTable_toJson(const TunedEntry *e);
/* Same device, cc, variant, shape and conditions: one entry replaces the other. */
bool TunedTable_sameSlot(const TunedEntry *a, const TunedEntry *b);

#endif
