/* benchtop tune --transfer-eval SESSION.json: the transfer rules replayed leave-one-out on a grid
 * session (bench/tune/tune_transfer.h), no GPU needed. Part of cmd_tune.c's command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/tune/tune_table.h"
#include "bench/tune/tune_transfer.h"
#include "cmd/cmd_tune.h"
#include "cmd/commands.h"
#include "common/text.h"
#include "common/util.h"

static int TuneCmd_failed(const char *err) {
  fputs("benchtop tune: ", stderr);
  Text_print(stderr, err);
  fputc('\n', stderr);
  return BT_EXIT_FAILED;
}

int TuneCmd_transfer(const char *path, const char *const *held, int nheld, const char *rule, int k,
                     const char *variant) {
  unsigned rules = 0;
  TransferRule r;
  if (strcmp(rule, "all") == 0) rules = (1u << TRANSFER_NRULES) - 1;
  else if (TransferRule_parse(rule, &r)) rules = 1u << r;
  else return Command_usageError(&Cmd_tune, "--rule takes all, nearest, feature, best-of-k, guarded, pick, pick+fit or pick+dissent, not '%.40s'", rule);
  if (variant && strchr(variant, ','))
    return Command_usageError(&Cmd_tune, "--transfer-eval takes one variant with -v (or none: every one)");
  Session s;
  char err[4096 + 512];
  if (!Session_load(path, &s, err, sizeof err)) return TuneCmd_failed(err);
  Session *hs = Util_xcalloc((size_t)nheld + 1, sizeof *hs);
  int loaded = 0, rc = BT_EXIT_OK;
  while (rc == BT_EXIT_OK && loaded < nheld) {
    if (!Session_load(held[loaded], &hs[loaded], err, sizeof err)) {
      rc = TuneCmd_failed(err);
      break;
    }
    /* Knobs transfer within one chip, as a shipped table serves every device of its chip (an
     * H200 reads the H100's GH100 table): a held-out session of another chip is no evidence. */
    const Session *h = &hs[loaded++];
    char chip_s[16], chip_h[16];
    bool same = !s.has_device || !h->has_device || strcmp(s.device.name, h->device.name) == 0 ||
                (TunedTable_chipOf(s.device.name, chip_s, sizeof chip_s) &&
                 TunedTable_chipOf(h->device.name, chip_h, sizeof chip_h) && strcmp(chip_s, chip_h) == 0);
    if (!same) {
      snprintf(err, sizeof err, "%.1000s was measured on %.96s, the grid on %.96s: held-out sessions must come "
               "from a GPU of the grid's chip", held[loaded - 1], h->device.name, s.device.name);
      rc = TuneCmd_failed(err);
    }
  }
  if (rc == BT_EXIT_OK) {
    if (nheld == 0)
      printf("leave-one-out transfer of tuned knobs on %s: each grid point held out gets the knobs a "
             "rule picks from the others; loss = that setting's recorded p50 there / the best recorded "
             "there - 1 (the points a rule took them from, * the one picked, distance in brackets)\n", path);
    else
      printf("transfer of tuned knobs from the grid %s to the problems of %d held-out session(s): each "
             "gets the knobs a rule picks from every grid point; loss = that setting's p50 recorded by "
             "the held-out search there / the best it recorded there - 1\n", path, nheld);
    if (!Transfer_replayHeldout(&s, hs, nheld, rules, k, variant, true, stdout, err, sizeof err))
      rc = TuneCmd_failed(err);
  }
  for (int i = 0; i < loaded; i++) Session_free(&hs[i]);
  free(hs);
  Session_free(&s);
  return rc;
}
