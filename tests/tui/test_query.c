/* The results filter and search queries (tui/query.c), on made-up records. */
#include <math.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tui/query.h"

static Record Make(const char *variant, const char *knobs, int S, bool causal, RecordStatus st,
                   double p50) {
  Record r;
  memset(&r, 0, sizeof r);
  snprintf(r.variant, sizeof r.variant, "%s", variant);
  snprintf(r.knobs, sizeof r.knobs, "%s", knobs);
  r.shape = (Shape){.B = 2, .H = 8, .S = S, .D = 64, .causal = causal};
  r.status = st;
  r.timing.p50 = p50;
  r.build.regs = -1;
  return r;
}

static bool M(const char *q, const Record *r) {
  Query query;
  char err[256];
  if (!Query_parse(q, &query, err, sizeof err)) {
    fprintf(stderr, "'%s': %s\n", q, err);
    return false;
  }
  return Query_match(&query, r);
}

static bool Bad(const char *q, const char *says) {
  Query query;
  char err[256] = "";
  bool ok = Query_parse(q, &query, err, sizeof err);
  if (ok || !strstr(err, says)) fprintf(stderr, "'%s': '%s'\n", q, err);
  return !ok && strstr(err, says) != NULL;
}

int main(void) {
  Record mma = Make("mma", "block_m=64,block_n=64,split=2", 512, false, REC_PASS, 11.5);
  Record wmma = Make("wmma", "acc=fp32", 512, true, REC_FAIL, 29.0);
  Record err = Make("fa3", "block_m=128", 4096, false, REC_ERROR, NAN);
  CHECK(M("", &mma) && M("   ", &err));
  CHECK(M("mma", &mma) && M("mma", &wmma) && !M("mma", &err)); /* text anywhere */
  CHECK(M("MMA", &mma));
  CHECK(M("variant:mma", &mma) && !M("variant:mma", &wmma));  /* exact */
  CHECK(M("knobs:split=2", &mma) && !M("knobs:split=4", &mma));
  CHECK(M("shape:2x8x512x64:causal", &wmma) && !M("shape:2x8x512x64", &wmma));
  CHECK(M("2x8x512x64:causal", &wmma) && !M("2x8x512x64:causal", &mma));
  CHECK(M("status:fail", &wmma) && M("fail", &wmma) && !M("fail", &mma));
  CHECK(M("p50<12", &mma) && !M("p50<12", &wmma) && !M("p50<12", &err)); /* n/a never */
  CHECK(M("p50>=29", &wmma) && M("p50<=29", &wmma) && M("p50=29", &wmma) && M("p50==29", &wmma));
  CHECK(!M("p50>29", &wmma));
  CHECK(M("!fail", &mma) && !M("!fail", &wmma));
  CHECK(M("!p50<12", &err)); /* not (n/a < 12) */
  CHECK(M("mma block_m=64 p50<20", &mma) && !M("mma block_m=64 p50<10", &mma));
  CHECK(M("block_m=128", &err)); /* a knob setting is text, not a column */
  CHECK(Bad("p50<", "expected a number"));
  CHECK(Bad("p50<fast", "expected a number"));
  CHECK(Bad("p50:12", "number column"));
  CHECK(Bad("variant<3", "text column"));
  CHECK(Bad("a b c d e f g h i j k l m n o p q", "at most 16 terms"));
  return Check_done("tui_query");
}
