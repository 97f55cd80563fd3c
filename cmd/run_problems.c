/* Problems a plan asks for that nothing in it can run: found before a worker starts. */
#include <stdio.h>
#include <string.h>

#include "cmd/run_loop.h"
#include "common/util.h"
#include "kernels/registry.h"

/* A problem that no entry of the plan can run on any device (every variant asked for refuses
 * it with every setting of its knobs: a dtype, GQA, a KV cache or a head dimension it does not
 * declare) is a usage error found before a worker starts, in one line naming the problem and
 * the first refusal. A refusal of the knobs asked for alone stays an n/a record. */
bool RunLoop_problemsRunnable(const PlanEntry *entries, int n, char *err, size_t errsize) {
  for (int i = 0; i < n; i++) {
    bool seen = false, runnable = false;
    for (int j = 0; j < i && !seen; j++) seen = Shape_equal(&entries[j].shape, &entries[i].shape);
    if (seen) continue;
    char why[300] = "", first[300] = "";
    const char *first_variant = NULL;
    int refusing = 0;
    for (int j = i; j < n && !runnable; j++) {
      if (!Shape_equal(&entries[j].shape, &entries[i].shape)) continue;
      /* The knobs asked for, the presets, then every setting (the defaults among them). */
      KnobValues any = entries[j].knobs;
      if (Registry_fittingKnobs(entries[j].variant, &entries[j].shape, 0, NULL, &any) >= 0) {
        runnable = true;
      } else if (refusing++ == 0) { /* the defaults' reason names what the problem asks for */
        KnobValues defaults;
        Registry_defaults(entries[j].variant, &defaults);
        Registry_refusal(entries[j].variant, &entries[j].shape, &defaults, NULL, why, sizeof why);
        first_variant = entries[j].variant->name;
        Util_strlcpy(first, why, sizeof first);
      }
    }
    if (runnable) continue;
    char shape[96];
    Shape_format(&entries[i].shape, shape, sizeof shape);
    snprintf(err, errsize, "no variant asked for runs %s: %s refuses it (%s)%s; give a variant that "
             "supports it (benchtop list variants)", shape, first_variant, first,
             refusing > 1 ? ", and so do the others" : "");
    return false;
  }
  return true;
}
