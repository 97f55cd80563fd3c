/* Compact knob labels: only non-default knobs, short names unique within a variant, and two
 * settings of one variant never read the same. */
#include <stdio.h>
#include <string.h>

#include "../unit/check.h"
#include "kernels/registry.h"
#include "sessions/knob_label.h"

static const char *Label(const char *variant, const char *knobs) {
  static char buf[256];
  KnobLabel_compact(variant, knobs, buf, sizeof buf);
  return buf;
}

/* Every setting that differs from the defaults in one knob, and the defaults: all labels of a
 * variant distinct, none longer than the full setting. */
static void Test_allVariants(void) {
  for (int vi = 0; vi < Registry_count(); vi++) {
    const Variant *v = Registry_at(vi);
    char labels[64][256];
    int n = 0;
    KnobValues kv;
    Registry_defaults(v, &kv);
    char full[256];
    Registry_formatKnobs(v, &kv, full, sizeof full);
    KnobLabel_compact(v->name, full, labels[n++], 256);
    CHECK(strcmp(labels[0], v->nknobs ? KNOB_LABEL_DEFAULTS : "-") == 0);
    for (int k = 0; k < v->nknobs; k++)
      for (int x = 0; x < Registry_knobValueCount(&v->knobs[k]) && n < 64; x++) {
        if (x == v->knobs[k].def) continue; /* the defaults are labels[0] */
        Registry_defaults(v, &kv);
        kv.idx[k] = x;
        Registry_formatKnobs(v, &kv, full, sizeof full);
        KnobLabel_compact(v->name, full, labels[n], 256);
        CHECK(strlen(labels[n]) <= strlen(full));
        for (int j = 0; j < n; j++)
          if (strcmp(labels[j], labels[n]) == 0) {
            printf("%s: '%s' twice (%s)\n", v->name, labels[n], full);
            CHECK(0);
          }
        n++;
      }
    /* Short names unique within the variant. */
    for (int i = 0; i < v->nknobs; i++)
      for (int j = 0; j < i; j++) {
        char a[64], b[64];
        KnobLabel_shortName(v->name, v->knobs[i].name, a, sizeof a);
        KnobLabel_shortName(v->name, v->knobs[j].name, b, sizeof b);
        CHECK(strcmp(a, b) != 0);
      }
  }
}

static void Test_examples(void) {
  const char *def = "block_m=64,block_n=64,warps=4,stages=2,split=1";
  const char *st3 = "block_m=64,block_n=64,warps=4,stages=3,split=1";
  if (Registry_find("mma") && strcmp(Label("mma", def), KNOB_LABEL_DEFAULTS) == 0) {
    CHECK(strcmp(Label("mma", st3), "st=3") == 0);
    CHECK(strcmp(Label("mma", "block_m=128,block_n=64,warps=4,stages=3,split=1"), "bm=128,st=3") == 0);
    char legend[256];
    KnobLabel_legend("mma", legend, sizeof legend);
    CHECK(strstr(legend, "bm block_m") && strstr(legend, "st stages"));
  }
  CHECK(strcmp(Label("naive", ""), "-") == 0);
  CHECK(strcmp(Label("no_such_variant", "x=1,y=2"), "x=1,y=2") == 0);       /* unknown: all */
  CHECK(strcmp(Label("mma", "block_m=64,no_such_knob=1"), "block_m=64,no_such_knob=1") == 0);
  CHECK(strcmp(Label("mma", "garbage"), "garbage") == 0);
  CHECK(strcmp(Label(NULL, "a=1"), "a=1") == 0);
  char tiny[4];
  KnobLabel_compact("mma", st3, tiny, sizeof tiny); /* truncated by the buffer, terminated */
  CHECK(strlen(tiny) < sizeof tiny);
}

int main(void) {
  Test_allVariants();
  Test_examples();
  return Check_done("knob_label");
}
