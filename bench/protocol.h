/* The worker protocol: JSON lines over pipes. Parent -> worker:
 *   {"op":"run","id":7,"variant":"mma","knobs":"block_m=64,...","shape":"2x8x512x64",
 *    "opts":{...},"metrics":"default"}            (one at a time)
 *   {"op":"build",...same fields...}             (compile and load only, in the background)
 *   {"op":"quit"}
 * Worker -> parent:
 *   {"type":"hello","device":{...}}   {"type":"nogpu","message":"..."}
 *   {"type":"progress","id":7,"phase":"timing"}   {"type":"record","id":7,"record":{...}}
 * Cancelling the entry in flight is SIGUSR1 (the worker is busy on the GPU, not reading). */
#ifndef BENCHTOP_PROTOCOL_H
#define BENCHTOP_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "bench/plan.h"

/* A heap string holding one line (with '\n'). */
char *Protocol_encodeEntry(const PlanEntry *e, int id);
/* {"op":"build",...}: compile and load only; the worker answers {"type":"built","id":N,
 * "ok":true|false,"message":"..."}. */
char *Protocol_encodeBuild(const PlanEntry *e, int id);
bool Protocol_decodeEntry(const cJSON *msg, PlanEntry *e, int *id, char *err, size_t errsize);
cJSON *Protocol_optionsToJson(const RunOptions *o);
void Protocol_optionsFromJson(const cJSON *j, RunOptions *o);

#endif
