/* libFuzzer target for kernel declarations (docs/kernel-declarations.md). Beyond "no crash, no
 * sanitizer report, no leak": every error is one line naming the file, and whatever the parser
 * accepts evaluates (refusal, launch plan) at its defaults and presets on a few shapes and
 * devices without crashing, each failure again one line naming the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const char *msg) {
  if (strchr(msg, '\n') || strncmp(msg, "f.cu", 4) != 0) {
    fprintf(stderr, "not one line naming the file: '%s'\n", msg);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char err[600];
  Variant *v = Registry_parseFile("f.cu", text, err, sizeof err);
  if (!v) {
    one_line(err);
  } else {
    static const Shape shapes[] = {{.B = 1, .H = 1, .S = 1, .D = 64, .causal = false},
                                   {.B = 2, .H = 8, .S = 512, .D = 64, .causal = true},
                                   {.B = 3, .H = 4, .S = 4097, .D = 128, .causal = false}};
    DeviceProps dev;
    Registry_anyDevice(&dev);
    dev.cc = 89;
    dev.sm_count = 58;
    for (int p = 0; p < v->npresets; p++)
      for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        KnobValues kv;
        Registry_defaults(v, &kv);
        if (!Registry_applyKnobs(v, v->presets[p], &kv, false, err, sizeof err)) abort(); /* checked at load */
        LaunchPlan plan;
        if (Registry_refusal(v, &shapes[i], &kv, &dev, err, sizeof err)) continue;
        if (!Registry_plan(v, &shapes[i], &kv, &dev, &plan, err, sizeof err)) one_line(err);
        char buf[600];
        Registry_formatKnobs(v, &kv, buf, sizeof buf);
      }
    char *copy = Registry_copyAs(v, "fuzzed_copy");
    Variant *w = Registry_parseFile("f.cu", copy, err, sizeof err);
    if (!w) { /* a copy of a valid declaration must load too */
      fprintf(stderr, "the copy does not load: %s\n", err);
      abort();
    }
    Registry_freeVariant(w);
    free(copy);
    Registry_freeVariant(v);
  }
  free(text);
  return 0;
}
