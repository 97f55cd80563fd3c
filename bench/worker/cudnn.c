/* The `cudnn` variant: libcudnn loaded with dlopen (a machine without it runs every other
 * variant), one handle per worker, the attention graph built once per problem and its execution
 * plans once per (problem, engine), each with its own workspace. */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/worker/cudnn.h"
#include "bench/worker/cudnn_api.h"
#include "common/util.h"

/* The oldest cuDNN whose fused attention graph this builds (docs/cuda-versions.md). */
#define CUDNN_MIN_VERSION 90000
#define CUDNN_GRAPHS_KEPT 4
#define CUDNN_PLANS_KEPT 16

static CudnnApi api;
static char api_error[256];
static bool api_tried;

bool CudnnApi_check(const CudnnApi *a, cudnnStatus_t st, const char *what, char *err, size_t errsize) {
  if (st == CUDNN_STATUS_SUCCESS) return true;
  char last[512] = "";
  if (a->last_error) a->last_error(last, sizeof last);
  for (char *c = last; *c; c++) /* one line: cuDNN's message may hold newlines */
    if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
  snprintf(err, errsize, "%s: cuDNN %s%s%s", what, a->error_string ? a->error_string(st) : "error",
           last[0] ? ": " : "", last);
  return false;
}

static void *Api_sym(const char *name, bool *ok) {
  void *f = dlsym(api.lib, name);
  if (!f && *ok) {
    snprintf(api_error, sizeof api_error, "libcudnn.so.9 lacks %s: not a cuDNN 9 library", name);
    *ok = false;
  }
  return f;
}

const CudnnApi *CudnnApi_load(char *why, size_t whysize) {
  if (!api_tried) {
    api_tried = true;
    /* BENCHTOP_CUDNN_LIBRARY: this file and no other (another cuDNN, e.g. PyTorch's) */
    const char *only = getenv("BENCHTOP_CUDNN_LIBRARY");
    if (only && only[0]) {
      api.lib = dlopen(only, RTLD_NOW | RTLD_LOCAL);
    } else {
      api.lib = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
      if (!api.lib) api.lib = dlopen("libcudnn_graph.so.9", RTLD_NOW | RTLD_LOCAL);
    }
    if (!api.lib) {
      const char *e = dlerror();
      snprintf(api_error, sizeof api_error, "cannot load %s (%s): install cuDNN 9 or put its lib "
               "folder on LD_LIBRARY_PATH", only && only[0] ? "BENCHTOP_CUDNN_LIBRARY" : "libcudnn.so.9",
               e ? e : "not found");
    } else {
      bool ok = true;
      /* POSIX allows converting dlsym's void * to a function pointer; ISO C does not say. */
      *(void **)&api.create = Api_sym("cudnnCreate", &ok);
      *(void **)&api.destroy = Api_sym("cudnnDestroy", &ok);
      *(void **)&api.set_stream = Api_sym("cudnnSetStream", &ok);
      *(void **)&api.get_version = Api_sym("cudnnGetVersion", &ok);
      *(void **)&api.error_string = Api_sym("cudnnGetErrorString", &ok);
      *(void **)&api.last_error = Api_sym("cudnnGetLastErrorString", &ok);
      *(void **)&api.make = Api_sym("cudnnBackendCreateDescriptor", &ok);
      *(void **)&api.unmake = Api_sym("cudnnBackendDestroyDescriptor", &ok);
      *(void **)&api.set = Api_sym("cudnnBackendSetAttribute", &ok);
      *(void **)&api.get = Api_sym("cudnnBackendGetAttribute", &ok);
      *(void **)&api.finalize = Api_sym("cudnnBackendFinalize", &ok);
      *(void **)&api.execute = Api_sym("cudnnBackendExecute", &ok);
      if (ok) {
        api.version = api.get_version();
        if (api.version < CUDNN_MIN_VERSION) {
          snprintf(api_error, sizeof api_error, "libcudnn is %zu.%zu; the cudnn variant needs cuDNN >= 9.0",
                   api.version / 10000, api.version / 100 % 100);
          ok = false;
        }
      }
      if (!ok) {
        dlclose(api.lib);
        api.lib = NULL;
      }
    }
  }
  if (api.lib) return &api;
  snprintf(why, whysize, "%s", api_error);
  return NULL;
}

bool Cudnn_available(char *why, size_t whysize) { return CudnnApi_load(why, whysize) != NULL; }

typedef struct CudnnPlan {
  int graph_serial, engine; /* the CudnnGraph it runs (by serial) and the heuristic's rank */
  cudnnBackendDescriptor_t plan, pack;
  void *workspace;
  int64_t workspace_bytes;
  const void *pack_ptrs[CUDNN_UIDS]; /* the pointers the variant pack was made with */
  float scale, lowest;               /* by-value tensors: the pack points at these */
  int32_t skv, sq;                   /* by-value lengths of an unpadded bottom-right diagonal */
  int *seq_q, *seq_kv;               /* the graph's, when padded (else NULL) */
  bool masked;                       /* the graph selects the lowest score somewhere */
  bool shift_values;                 /* the graph reads skv and sq by value */
  unsigned long long used;
} CudnnPlan;

typedef struct CudnnState {
  cudnnHandle_t handle;
  CudnnGraph graphs[CUDNN_GRAPHS_KEPT];
  int graph_serials[CUDNN_GRAPHS_KEPT]; /* 0: empty */
  unsigned long long graph_used[CUDNN_GRAPHS_KEPT];
  CudnnPlan plans[CUDNN_PLANS_KEPT];
  int serial;
  unsigned long long clock;
} CudnnState;

bool Cudnn_uses(const Variant *v) {
  for (int i = 0; i < v->nsteps; i++)
    if (v->steps[i].hook == HOOK_CUDNN_SDPA) return true;
  return false;
}

/* The `engine` knob's value (0 when the variant has none). */
static int Cudnn_engine(const Variant *v, const KnobValues *kv) {
  for (int k = 0; k < v->nknobs; k++)
    if (strcmp(v->knobs[k].name, "engine") == 0) return (int)v->knobs[k].numbers[kv->idx[k]];
  return 0;
}

static void Plan_drop(CudnnPlan *p) {
  if (p->pack) api.unmake(p->pack);
  if (p->plan) api.unmake(p->plan);
  if (p->workspace) cudaFree(p->workspace);
  memset(p, 0, sizeof *p);
}

static void Graph_drop(CudnnGraph *gr) {
  if (gr->seq_q) cudaFree(gr->seq_q);
  if (gr->seq_kv) cudaFree(gr->seq_kv);
  gr->seq_q = gr->seq_kv = NULL;
  CudnnGraph_free(&api, gr);
}

/* B copies of len on the device, in *out. */
static bool Graph_lengths(int B, int len, int **out) {
  int *host = Util_xcalloc((size_t)B, sizeof *host);
  for (int i = 0; i < B; i++) host[i] = len;
  bool ok = cudaMalloc((void **)out, sizeof *host * (size_t)B) == cudaSuccess &&
            cudaMemcpy(*out, host, sizeof *host * (size_t)B, cudaMemcpyHostToDevice) == cudaSuccess;
  free(host);
  return ok;
}

/* Padded graphs read the sequence lengths from the device: B copies of S and of Skv. */
static bool Graph_seqLens(CudnnGraph *gr, char *err, size_t errsize) {
  bool ok = Graph_lengths(gr->B, gr->S, &gr->seq_q) && Graph_lengths(gr->B, gr->Skv, &gr->seq_kv);
  if (!ok) snprintf(err, errsize, "cannot allocate cuDNN's 2 x %d sequence lengths on the GPU", gr->B);
  return ok;
}

static CudnnState *Cudnn_state(Gpu *g, char *err, size_t errsize) {
  if (g->cudnn) return g->cudnn;
  if (!CudnnApi_load(err, errsize)) return NULL;
  CudnnState *st = Util_xcalloc(1, sizeof *st);
  if (!CudnnApi_check(&api, api.create(&st->handle), "creating the cuDNN handle", err, errsize)) {
    free(st);
    return NULL;
  }
  g->cudnn = st;
  return st;
}

/* The graph of this problem, built now if no kept one matches (the least recently used goes). */
static CudnnGraph *Cudnn_graph(CudnnState *st, const Shape *s, int *serial, char *err, size_t errsize) {
  int slot = 0;
  for (int i = 0; i < CUDNN_GRAPHS_KEPT; i++) {
    CudnnGraph *gr = &st->graphs[i];
    if (st->graph_serials[i] && gr->B == s->B && gr->H == s->H && gr->S == s->S && gr->D == s->D &&
        gr->causal == s->causal && gr->Hkv == Shape_hkv(s) && gr->Skv == Shape_skv(s) &&
        gr->bf16 == (s->dtype == SHAPE_BF16)) {
      st->graph_used[i] = ++st->clock;
      *serial = st->graph_serials[i];
      return gr;
    }
    if (st->graph_used[i] < st->graph_used[slot]) slot = i;
  }
  if (st->graph_serials[slot]) {
    for (int i = 0; i < CUDNN_PLANS_KEPT; i++)
      if (st->plans[i].graph_serial == st->graph_serials[slot]) Plan_drop(&st->plans[i]);
    Graph_drop(&st->graphs[slot]);
    st->graph_serials[slot] = 0;
  }
  CudnnGraph *gr = &st->graphs[slot];
  memset(gr, 0, sizeof *gr);
  *gr = (CudnnGraph){.B = s->B, .H = s->H, .S = s->S, .D = s->D, .causal = s->causal,
                     .Hkv = Shape_hkv(s), .Skv = Shape_skv(s), .bf16 = s->dtype == SHAPE_BF16};
  gr->padded = api.version <= 91500 && (gr->S % 128 != 0 || gr->Skv % 128 != 0);
  if ((gr->padded && !Graph_seqLens(gr, err, errsize)) ||
      !CudnnGraph_build(&api, st->handle, gr, err, errsize)) {
    Graph_drop(gr);
    return NULL;
  }
  st->graph_serials[slot] = *serial = ++st->serial;
  st->graph_used[slot] = ++st->clock;
  return gr;
}

static CudnnPlan *Cudnn_findPlan(CudnnState *st, int serial, int engine) {
  for (int i = 0; i < CUDNN_PLANS_KEPT; i++)
    if (st->plans[i].plan && st->plans[i].graph_serial == serial && st->plans[i].engine == engine) {
      st->plans[i].used = ++st->clock;
      return &st->plans[i];
    }
  return NULL;
}

/* Finalize the engine configuration's plan; a refusal when cuDNN will not (its reason kept). */
static bool Cudnn_makePlan(CudnnState *st, CudnnGraph *gr, int serial, int engine, bool *refused,
                           char *err, size_t errsize) {
  CudnnPlan *p = &st->plans[0];
  for (int i = 1; i < CUDNN_PLANS_KEPT; i++)
    if (st->plans[i].used < p->used) p = &st->plans[i];
  Plan_drop(p);
  char what[96];
  snprintf(what, sizeof what, "cuDNN engine %d of %d", engine, gr->nconfigs);
  if (!CudnnApi_check(&api, api.make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &p->plan), what, err, errsize) ||
      !CudnnApi_check(&api, api.set(p->plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
                                    &st->handle), what, err, errsize) ||
      !CudnnApi_check(&api, api.set(p->plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &gr->configs[engine]), what, err, errsize)) {
    Plan_drop(p);
    return false;
  }
  if (!CudnnApi_check(&api, api.finalize(p->plan), what, err, errsize)) {
    *refused = true; /* the heuristics offered it, but it does not build for this problem */
    Plan_drop(p);
    return false;
  }
  int64_t n = 0;
  if (!CudnnApi_check(&api, api.get(p->plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64,
                                    1, &n, &p->workspace_bytes), "reading the plan's workspace size", err, errsize)) {
    Plan_drop(p);
    return false;
  }
  if (p->workspace_bytes > 0 && cudaMalloc(&p->workspace, (size_t)p->workspace_bytes) != cudaSuccess) {
    snprintf(err, errsize, "%s: cannot allocate its %lld-byte workspace on the GPU", what,
             (long long)p->workspace_bytes);
    *refused = true;
    Plan_drop(p);
    return false;
  }
  p->graph_serial = serial;
  p->seq_q = gr->seq_q;
  p->seq_kv = gr->seq_kv;
  p->masked = gr->causal || gr->padded;
  p->shift_values = CudnnGraph_shifted(gr) && !gr->padded;
  p->skv = gr->Skv;
  p->sq = gr->S;
  p->engine = engine;
  p->used = ++st->clock;
  return true;
}

bool Cudnn_prepare(Gpu *g, const Variant *v, const KnobValues *kv, const Shape *s,
                   double *built_ms, bool *refused, char *err, size_t errsize) {
  *built_ms = 0;
  *refused = false;
  double t0 = Util_nowMs();
  CudnnState *st = Cudnn_state(g, err, errsize);
  if (!st) {
    *refused = true; /* no cuDNN on this machine: n/a, as an unsupported head dim is */
    return false;
  }
  int serial = 0, engine = Cudnn_engine(v, kv);
  CudnnGraph *gr = Cudnn_graph(st, s, &serial, err, errsize);
  if (!gr) {
    *refused = true; /* cuDNN does not support this graph: its reason */
    return false;
  }
  if (Cudnn_findPlan(st, serial, engine)) return true;
  if (engine >= gr->nconfigs) {
    snprintf(err, errsize, "cuDNN's heuristics offer %d engine configuration%s for this problem: "
             "engine=%d does not exist (0 .. %d)", gr->nconfigs, gr->nconfigs == 1 ? "" : "s", engine,
             gr->nconfigs - 1);
    *refused = true;
    return false;
  }
  if (!Cudnn_makePlan(st, gr, serial, engine, refused, err, errsize)) return false;
  *built_ms = Util_nowMs() - t0;
  return true;
}

/* The variant pack of these buffers, remade only when the pointers change. */
static bool Plan_pack(CudnnPlan *p, const AttnParams *ap, char *err, size_t errsize) {
  const void *ptrs[CUDNN_UIDS] = {ap->q, ap->k, ap->v, ap->o, &p->scale, &p->lowest,
                                  p->seq_q, p->seq_kv, &p->skv, &p->sq};
  if (p->pack && memcmp(ptrs, p->pack_ptrs, sizeof ptrs) == 0 && p->scale == ap->scale) return true;
  if (p->pack) api.unmake(p->pack);
  p->pack = NULL;
  p->scale = ap->scale;
  /* the masked score: older cuDNN wants the lowest float, 9.10 on -inf (as the frontend does) */
  p->lowest = api.version >= 91000 ? -INFINITY : -FLT_MAX;
  memcpy(p->pack_ptrs, ptrs, sizeof ptrs);
  /* the graph's non-virtual tensors only: the mask value when it masks, the lengths when padded,
   * the by-value lengths when they shift an unpadded diagonal */
  int64_t uids[CUDNN_UIDS];
  void *data[CUDNN_UIDS];
  int64_t n = 0;
  for (int i = 0; i < CUDNN_UIDS; i++) {
    int64_t uid = CUDNN_UID_Q + i;
    if ((uid == CUDNN_UID_NEG && !p->masked) || ((uid == CUDNN_UID_SEQ_Q || uid == CUDNN_UID_SEQ_KV) && !p->seq_q) ||
        ((uid == CUDNN_UID_SKV || uid == CUDNN_UID_SQ) && !p->shift_values))
      continue;
    uids[n] = uid;
    data[n++] = (void *)ptrs[i];
  }
  const char *what = "making the cuDNN variant pack";
  if (!CudnnApi_check(&api, api.make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &p->pack), what, err, errsize))
    return false;
  bool ok = CudnnApi_check(&api, api.set(p->pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
                                         n, uids), what, err, errsize) &&
            CudnnApi_check(&api, api.set(p->pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                                         n, data), what, err, errsize) &&
            CudnnApi_check(&api, api.set(p->pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
                                         &p->workspace), what, err, errsize) &&
            CudnnApi_check(&api, api.finalize(p->pack), what, err, errsize);
  if (!ok) {
    api.unmake(p->pack);
    p->pack = NULL;
  }
  return ok;
}

bool Cudnn_run(Gpu *g, const Variant *v, const KnobValues *kv, const AttnParams *ap, char *err,
               size_t errsize) {
  Shape s = {.B = ap->B, .H = ap->H, .S = ap->S, .D = ap->D, .causal = ap->causal != 0,
             .Hkv = ap->Hkv, .Skv = ap->Skv, .dtype = ap->dtype == 1 ? SHAPE_BF16 : SHAPE_FP16};
  double built;
  bool refused;
  if (!Cudnn_prepare(g, v, kv, &s, &built, &refused, err, errsize)) return false;
  CudnnState *st = g->cudnn;
  int serial = 0;
  CudnnGraph *gr = Cudnn_graph(st, &s, &serial, err, errsize);
  CudnnPlan *p = gr ? Cudnn_findPlan(st, serial, Cudnn_engine(v, kv)) : NULL;
  if (!p) {
    if (gr) snprintf(err, errsize, "the cuDNN plan was not kept (internal error)");
    return false;
  }
  return CudnnApi_check(&api, api.set_stream(st->handle, g->stream), "setting the cuDNN stream", err, errsize) &&
         Plan_pack(p, ap, err, errsize) &&
         CudnnApi_check(&api, api.execute(st->handle, p->plan, p->pack), "running cuDNN's attention plan",
                        err, errsize);
}

void Cudnn_free(Gpu *g) {
  CudnnState *st = g->cudnn;
  if (!st) return;
  for (int i = 0; i < CUDNN_PLANS_KEPT; i++) Plan_drop(&st->plans[i]);
  for (int i = 0; i < CUDNN_GRAPHS_KEPT; i++) Graph_drop(&st->graphs[i]);
  api.destroy(st->handle);
  free(st);
  g->cudnn = NULL;
}
