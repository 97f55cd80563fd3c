/* The result record: one variant x knobs x shape x options, measured once. The same struct
 * travels from the worker (as a JSON line), into the session, onto the screen and into files.
 * A field that was not measured holds NAN (doubles) or -1 (counts) and is shown as n/a. */
#ifndef BENCHTOP_RECORD_H
#define BENCHTOP_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/build_info.h"
#include "kernels/shape.h"

#define RECORD_NAME_MAX 32
#define RECORD_KNOBS_MAX 160 /* KNOB_TEXT_MAX: a declaration whose knobs could write more is refused */
#define RECORD_REASON_MAX 320
#define METRIC_NAME_MAX 96

typedef enum {
  REC_PASS = 0,   /* ran, verified within tolerance */
  REC_FAIL,       /* ran, verification failed (error too large, NaN, unwritten elements) */
  REC_ERROR,      /* did not complete: compile error, kernel fault, hang, worker died */
  REC_NA,         /* not run: unsupported combination, refused shape ("n/a: <reason>") */
  REC_CANCELLED,  /* stopped by the user */
} RecordStatus;

const char *Record_statusName(RecordStatus st);
bool Record_statusParse(const char *s, RecordStatus *out);

typedef struct DeviceInfo {
  char name[96];
  int index;            /* the CUDA ordinal benchtop ran it on (--devices), -1 if not said */
  char uuid[48];        /* "GPU-xxxxxxxx-...", "" if unknown: tells two GPUs of one kind apart */
  int cc_major, cc_minor;
  int sm_count;
  int64_t l2_bytes, mem_bytes;
  int driver_version;   /* e.g. 13000 */
  int runtime_version;  /* e.g. 13000 */
  int nvrtc_major, nvrtc_minor;
  int cupti_version;    /* CUPTI API version, -1 if unknown */
  double peak_tflops;   /* measured fp16 tensor peak (TFLOP/s), NAN if not measured */
  double peak_gbs;      /* measured device-to-device copy bandwidth, read + write (GB/s) */
  double launch_us;     /* an empty kernel's time by kernel timestamps (us): the launch floor */
} DeviceInfo;

typedef struct RunOptions {
  int reps, warmup;
  bool cold_l2, graph;
  bool event_timing; /* time with CUDA events only, not CUPTI kernel timestamps */
  uint64_t seed;
  double watchdog_s;
  char l2_persist[8];  /* persisting L2 window on "q", "kv", "qkv"; "off" or "" (older): none */
  double span_s;       /* timed in blocks after pauses over at least this long; 0: by default
                        * (large records pause); -1: back to back (--span 0) */
} RunOptions;

/* A record's note on where its knobs came from (bench/tune/tune_table.h writes it). */
#define RECORD_AUTO_NOTE_MAX 400
#define RECORD_REPLICATES_MAX 16
typedef struct Timing {
  double p50, p90, p99, min, mean, stddev; /* microseconds per launch */
  double tflops, peak_frac;
  int nsamples;
  double *samples; /* microseconds, in launch order; owned */
  /* "kernel": samples are CUPTI kernel timestamps (first kernel start to last kernel end of
   * each launch); "events": CUDA events around each launch; "" in sessions made before
   * the field existed (those were events). */
  char source[8];
  char source_note[200]; /* why events were used when kernel timestamps were wanted */
  double event_p50;      /* p50 of the CUDA events around the same launches, NAN if none */
  /* The p50 of the launches of each independently allocated input set the timed launches
   * rotated through (their between-set spread widens every verdict's interval); 0 when not
   * recorded (older sessions, graph replays, which mix the sets in every launch). */
  int nreplicates;
  double replicate_p50[RECORD_REPLICATES_MAX];
} Timing;

typedef struct ErrorStats {
  double max_abs, rel_l2, tolerance;
  int64_t nan_count, inf_count, unwritten;
  bool checked;
} ErrorStats;

typedef struct Clocks {
  double sm_mhz_before, sm_mhz_after, mem_mhz_before, mem_mhz_after;
  double temp_c, power_w;
  int64_t throttle_reasons; /* NVML bit mask, -1 if unknown */
} Clocks;

/* One kernel of a multi-kernel variant, over the timed launches (kernel timestamps): where the
 * time of the p50 goes. The kernels' p50s and the gaps add up to about the record's p50. */
#define RECORD_KERNELS_MAX 16
#define KERNEL_NAME_MAX 128
typedef struct KernelSpan {
  char name[KERNEL_NAME_MAX]; /* as the driver names it (C++ names stay mangled), cut to fit */
  double p50_us;              /* median duration */
  double gap_before_us;       /* median idle time since the previous kernel ended; first kernel:
                               * since the previous run's last in a graph of runs, else NAN */
  double share;               /* p50_us over the record's p50 */
  int launches;               /* timed launches it was measured in */
} KernelSpan;

typedef struct Metric {
  char name[METRIC_NAME_MAX];
  double value;                 /* NAN when not available */
  char unit[16];
  char reason[RECORD_REASON_MAX / 2]; /* why n/a */
} Metric;

/* Where a record stands in its tune (`benchtop tune`); rank -1 when it was not tuned. */
typedef struct TuneMark {
  int rank;     /* its configuration's place among those measured for its variant and shape
                   (1: the winner), by p50 */
  int of;       /* configurations ranked there */
  bool winner;  /* the record the session names as that variant and shape's winner */
  bool tied;    /* its configuration's samples cannot be told apart from the winner's */
} TuneMark;

typedef struct Record {
  char variant[RECORD_NAME_MAX];
  char knobs[RECORD_KNOBS_MAX]; /* canonical "k=v,k=v" (every knob of the variant) */
  Shape shape;
  RunOptions opts;
  RecordStatus status;
  char reason[RECORD_REASON_MAX];
  char created[32];
  Timing timing;
  ErrorStats error;
  BuildInfo build;
  Clocks clocks;
  DeviceInfo device;
  int nmetrics;
  Metric *metrics;      /* owned */
  int metric_passes;    /* replay passes CUPTI needed, -1 if none collected */
  int nkernels;         /* per-kernel breakdown, in launch order; 0 when not measured */
  KernelSpan *kernels;  /* owned */
  double occupancy_theoretical; /* percent, from the occupancy API */
  char knobs_auto[RECORD_AUTO_NOTE_MAX]; /* where tuned knobs came from ("auto from table ...") or
                                          * why the defaults ran ("defaults: ..."); "" not asked */
  TuneMark tune;
  char host[128];       /* the machine that ran it ("" = the session's host) */
  int plan_index;       /* its entry's position in the expanded plan (from 0), -1 if none */
} Record;

/* Every field n/a (NAN / -1), strings empty. */
void Record_init(Record *r);
/* Every device field n/a (NAN / -1), name empty. */
void Device_init(DeviceInfo *d);
/* Options n/a: reps/warmup -1, watchdog NAN, seed 0, flags false. */
void RunOptions_init(RunOptions *o);
void Record_free(Record *r);
/* Deep copy (samples and metrics duplicated). */
void Record_copy(Record *dst, const Record *src);
/* Timed by CUPTI kernel timestamps (timing.source "kernel"); else by CUDA events. */
bool Record_kernelClock(const Record *r);
/* The p50s of two records of the same work, by one clock: their own p50s when both were timed
 * by the same clock, else the CUDA-event p50s both have (a kernel-timed record keeps the events
 * of the same launches in event_p50; events include 2-3 us of launch latency that kernel
 * timestamps do not). Returns true when it fell back to events. */
bool Record_comparableP50(const Record *a, const Record *b, double *pa, double *pb);
/* Metric by Nsight Compute name, or NULL. */
const Metric *Record_metric(const Record *r, const char *name);
/* Same variant, knobs and shape: the key `diff` matches on. */
bool Record_sameKey(const Record *a, const Record *b);

#endif
