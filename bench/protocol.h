/* The worker protocol: JSON lines over pipes. Parent -> worker:
 *   {"op":"run","id":7,"variant":"mma","knobs":"block_m=64,...","shape":"2x8x512x64",
 *    "opts":{...},"metrics":"default"}            (one at a time)
 *   {"op":"build",...same fields...}             (compile and load only, in the background)
 *   {"op":"ping","id":7}                         (answered in order: every earlier request is done)
 *   {"op":"quit"}
 * Worker -> parent:
 *   {"type":"hello","device":{...},"devices":N}   {"type":"nogpu","message":"..."}
 *   {"type":"progress","id":7,"phase":"timing"}   {"type":"record","id":7,"record":{...}}
 *   {"type":"pong","id":7}
 * Every request gets exactly one answer (a record, or "built" for a build), with its id; the
 * first word about a run request (progress "compiling") is due within the watchdog.
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
/* A record (Record_init'ed) naming the request msg as it was asked (variant, knobs and shape
 * strings), for a request the worker cannot decode. */
void Protocol_requestRecord(const cJSON *msg, Record *rec);
cJSON *Protocol_optionsToJson(const RunOptions *o);
void Protocol_optionsFromJson(const cJSON *j, RunOptions *o);

#endif
