/* The parsed declaration behind a Variant: its expressions and the names they resolve to.
 * Shared by the parser (decl*.c), the evaluator (registry_eval.c) and the loader (registry.c);
 * nothing outside kernels/ sees it. */
#ifndef BENCHTOP_DECL_PRIVATE_H
#define BENCHTOP_DECL_PRIVATE_H

#include "kernels/expr.h"
#include "kernels/registry.h"

#define DECL_MAX_LETS 64
#define DECL_MAX_RULES 64

/* Expression slots: the shape, the device, the knobs, then the lets. */
enum {
  SLOT_B, SLOT_H, SLOT_S, SLOT_D, SLOT_CAUSAL, /* the shape */
  SLOT_SMS, SLOT_CC, SLOT_SMEM_OPTIN, SLOT_L2_BYTES, /* the device (unknown without one) */
  SLOT_HQ, SLOT_HKV, SLOT_SQ, SLOT_SKV, SLOT_DTYPE,  /* the wider problem (Hq = H, Sq = S) */
  SLOT_KNOB0,                                  /* knob k is SLOT_KNOB0 + k */
  SLOT_LET0 = SLOT_KNOB0 + KNOB_MAX,           /* let l is SLOT_LET0 + l */
};

/* The dtypes a declaration may name (`dtypes fp16 bf16`, `dtype == "bf16"`): ShapeDtype 0 .. this
 * minus one, named by Shape_dtypeName. */
#define DECL_NDTYPES 2

typedef struct DeclLet {
  char *name;
  ExprId expr;
  int line;
} DeclLet;

typedef struct DeclRule {
  ExprId expr;
  bool refuse_when_true; /* `refuse COND`; `require COND` refuses when it is false */
  char *reason;
  int line;
} DeclRule;

typedef struct DeclValue {
  ExprId expr; /* -1: not declared */
  int line;
} DeclValue;

struct VariantDecl {
  ExprPool pool;
  int decl_line;          /* where the declaration block starts (0: bare kernel) */
  int name_line, builds_on_line; /* of those directives (0: none), for Registry_copyAs */
  DeclLet lets[DECL_MAX_LETS];
  int nlets;
  int splits_let;         /* the let `splits` sets (AttnParams.num_splits), -1: one split */
  DeclRule rules[DECL_MAX_RULES];
  int nrules;
  DeclValue scratch[SCRATCH_COUNT];
  DeclValue tma[4];       /* Q, K, V, O box rows */
  int *preset_lines;      /* of each Variant.presets entry */
  /* Owned storage behind the Variant's const pointers. */
  KnobDesc knobs[KNOB_MAX];
  void **owned;           /* every string and array the Variant points to */
  int nowned;
};

/* Parses the declaration in text (the whole .cu file) for source (the name shown in
 * messages). A file with no declaration block: NULL with *bare set (the caller decides). */
Variant *Decl_parse(const char *source, const char *text, bool *bare, char *err, size_t errsize);
/* A variant for a file with no declaration that has an attn_fwd: one thread per query row,
 * 128 rows a block, D 64 or 128, sm_80, tolerance 2e-3 (the fault and cheat test kernels).
 * NULL when the file has no attn_fwd. */
Variant *Decl_bare(const char *name, const char *source, const char *file_text);
/* Checks the declaration at the defaults and every preset, each head dim, two probe shapes,
 * on a device with the limits every GPU has: false with one line "FILE:LINE: ..." in err. */
bool Decl_probe(const Variant *v, char *err, size_t errsize);
void Decl_free(Variant *v);
/* Keeps a copy of s (or the heap block) alive as long as v, for its const pointers. */
char *Decl_keep(Variant *v, const char *s);
void *Decl_own(Variant *v, void *block);

#endif
