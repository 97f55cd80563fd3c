/* Unit: the host side against chips offline (libnvperf_host, no GPU, no driver): every
 * headline metric is known and schedulable alone on GH100 and AD104, one config image holds
 * them all, bad names are told apart, an unknown chip fails with one line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sessions/catalog.h"
#include "cupti/nvpw.h"
#include "tests/unit/check.h"

static void test_chip(const char *chip) {
  char err[1400];
  NvpwHost *h = NvpwHost_new(chip, NULL, err, sizeof err);
  CHECKF(h != NULL, "%s: %s", chip, err);
  if (!h) return;
  const char *names[64];
  int nvalid = 0;
  for (int i = 0; i < Catalog_headlineCount; i++) {
    const MetricInfo *m = &Catalog_headline[i];
    /* A derived metric is never asked of CUPTI: its two inputs are. */
    for (int k = 0; k < (m->derive != DERIVE_NONE ? 2 : 1); k++) {
      const char *name = m->derive != DERIVE_NONE ? m->from[k] : m->name;
      char unit[16], reason[160] = "";
      int passes = 0;
      bool ok = NvpwHost_validate(h, name, unit, sizeof unit, &passes, reason, sizeof reason);
      /* Every chip has the headline set, except the entries marked as some chips' only; GH100
       * has all of them. */
      CHECKF(ok || (m->some_chips && strcmp(chip, "GH100") != 0), "%s: %s: %s", chip, name, reason);
      printf("%s %-72s %s passes=%d unit=%s\n", chip, name, ok ? "valid" : reason, passes, unit);
      if (ok && nvalid < 64) names[nvalid++] = name;
    }
  }
  uint8_t *img = NULL;
  size_t size = 0;
  int passes = 0;
  bool ok = NvpwHost_configImage(h, names, nvalid, &img, &size, &passes, err, sizeof err);
  CHECKF(ok && img && size > 0 && passes >= 1 && passes <= 8, "%s config: %s", chip, err);
  printf("%s headline config image: %zu bytes, %d passes\n", chip, size, passes);
  free(img);

  char unit[16], reason[160];
  CHECKF(!NvpwHost_validate(h, "sm__bogus_metric_name.sum", unit, sizeof unit, NULL, reason,
                            sizeof reason), "bogus valid");
  CHECKF(strstr(reason, "unknown metric") != NULL, "bogus reason '%s'", reason);
  CHECKF(!NvpwHost_validate(h, "sm__warps_active.bogus_suffix", unit, sizeof unit, NULL, reason,
                            sizeof reason), "bad suffix valid");
  CHECKF(strstr(reason, "unknown suffix") != NULL, "suffix reason '%s'", reason);
  /* The canonical chip name comes back whatever the case typed. */
  CHECKF(strcmp(NvpwHost_chip(h), chip) == 0, "chip %s", NvpwHost_chip(h));
  NvpwHost_free(h);
}

int main(void) {
  test_chip("GH100");
  test_chip("AD104");
  char err[1400];
  NvpwHost *h = NvpwHost_new("gh100", NULL, err, sizeof err);
  CHECKF(h && strcmp(NvpwHost_chip(h), "GH100") == 0, "lower-case chip: %s", err);
  NvpwHost_free(h);
  h = NvpwHost_new("NOTACHIP", NULL, err, sizeof err);
  CHECKF(!h && strstr(err, "unknown chip 'NOTACHIP'") && strstr(err, "GH100") &&
             !strchr(err, '\n'), "unknown chip: '%s'", err);
  NvpwHost_free(h);
  char chips[1024];
  CHECKF(Nvpw_supportedChips(chips, sizeof chips, err, sizeof err) && strstr(chips, "AD104"),
         "supported chips: %s", chips);
  return Check_done("offline host side for GH100 and AD104");
}
