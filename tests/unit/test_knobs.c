/* kernels/knobs: the one knob parser and formatter, settings compared by value, sweeps. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/knobs.h"

/* Every token of text as "name=value" or "+value" (a sweep's further values), ';'-separated;
 * "!" at the end when the text is malformed. */
static void tokens(const char *text, char *out, size_t size) {
  KnobToken t = {0};
  size_t used = 0;
  int rc;
  out[0] = '\0';
  for (const char *p = text; (rc = KnobText_next(&p, &t)) > 0;)
    used += (size_t)snprintf(out + used, size - used, t.first ? "%.*s=%.*s;" : "+%.*s;",
                             t.first ? (int)t.name_len : (int)t.value_len, t.first ? t.name : t.value,
                             (int)t.value_len, t.value);
  if (rc < 0) snprintf(out + used, size - used, "!");
}

static void test_text(void) {
  char buf[256];
  tokens("block_m=64,stages=3", buf, sizeof buf);
  CHECKF(strcmp(buf, "block_m=64;stages=3;") == 0, "%s", buf);
  tokens("stages=2,3,block_m=128", buf, sizeof buf);
  CHECKF(strcmp(buf, "stages=2;+3;block_m=128;") == 0, "%s", buf);
  tokens("", buf, sizeof buf);
  CHECK(strcmp(buf, "") == 0);
  tokens("64", buf, sizeof buf); /* a value before any name */
  CHECKF(strcmp(buf, "!") == 0, "%s", buf);
  tokens("a=", buf, sizeof buf);
  CHECKF(strcmp(buf, "!") == 0, "%s", buf);
  tokens("=1", buf, sizeof buf);
  CHECKF(strcmp(buf, "!") == 0, "%s", buf);
  tokens("a=1,,b=2", buf, sizeof buf);
  CHECKF(strcmp(buf, "a=1;!") == 0, "%s", buf);

  char v[16];
  CHECK(KnobText_value("block_m=64,stages=3", "stages", v, sizeof v) && strcmp(v, "3") == 0);
  CHECK(!KnobText_value("block_m=64,stages=3", "stage", v, sizeof v));
  CHECK(!KnobText_value("block_m=64,stages=3", "block_m=64", v, sizeof v));
  CHECK(!KnobText_value("acc=fp32_wide_enough", "acc", v, 4)); /* too long: refused, not cut */

  /* Identity by value: order and spelling of numbers do not matter, words do. */
  CHECK(KnobText_same("block_m=64,stages=3", "stages=03,block_m=064"));
  CHECK(!KnobText_same("block_m=64,stages=3", "block_m=64,stages=2"));
  CHECK(!KnobText_same("block_m=64,stages=3", "block_m=64"));
  CHECK(!KnobText_same("acc=fp32", "acc=fp16"));
  CHECK(KnobText_same("", NULL));
  CHECK(KnobText_same("a=1,b=2,3", "b=2,03,a=1") && !KnobText_same("a=1,b=2,3", "b=3,2,a=1"));
  CHECK(!KnobText_same("a=1,b=2,3", "a=1,b=2") && !KnobText_same("a=1,b=2", "b=2,3,a=1"));
  CHECK(!KnobText_same("a=1,b=2", "b=2,a=1,c=3") && !KnobText_same("a=1", "b=1"));
  CHECK(KnobText_same("x,,", "x,,") && !KnobText_same("x,,", "x,"));
  CHECK(KnobText_compare("block_m=64", "block_m=128") < 0); /* numbers as numbers */
  CHECK(KnobText_compare("block_m=128", "block_m=0128") == 0);
  CHECK(KnobText_sameValue("064", "64") && !KnobText_sameValue("auto", "0"));

  /* The one formatter: refuses nothing, counts what a cut would lose. */
  char small[8];
  size_t used = 0;
  KnobText_append(small, sizeof small, &used, "stages", 6, "3", 1);
  CHECK(used == 8 && strlen(small) == 7);
  used = 0;
  KnobText_append(buf, sizeof buf, &used, "a", 1, "1", 1);
  KnobText_append(buf, sizeof buf, &used, "b", 1, "2", 1);
  KnobText_appendValue(buf, sizeof buf, &used, "3", 1);
  CHECKF(strcmp(buf, "a=1,b=2,3") == 0 && used == 9, "%s", buf);
  char *grown = KnobText_withValue("stages=2", "3", 1);
  CHECK(strcmp(grown, "stages=2,3") == 0);
  free(grown);
}

static void test_typed(void) {
  const Variant *v = Registry_find("mma");
  CHECK(v != NULL);
  if (!v) return;
  char err[256], buf[KNOB_TEXT_MAX];
  KnobValues a, b;
  Registry_defaults(v, &a);
  Registry_defaults(v, &b);
  CHECK(Registry_applyKnobs(v, "block_m=128,stages=3", &a, false, err, sizeof err));
  CHECK(Registry_applyKnobs(v, "stages=03,block_m=128", &b, false, err, sizeof err));
  CHECK(KnobValues_equal(v, &a, &b));
  Registry_formatKnobs(v, &a, buf, sizeof buf);
  CHECKF(strcmp(buf, "block_m=128,block_n=64,warps=4,stages=3,split=1") == 0, "%s", buf);
  CHECK(!Registry_applyKnobs(v, "block_m=128,3", &a, false, err, sizeof err) && strstr(err, "'3'"));
  CHECK(!Registry_applyKnobs(v, "bogus=1", &a, false, err, sizeof err) && strstr(err, "no knob 'bogus'"));
  CHECK(Registry_applyKnobs(v, "bogus=1", &a, true, err, sizeof err));
  CHECK(!Registry_applyKnobs(v, "stages=7", &a, false, err, sizeof err) && strstr(err, "allowed: 2|3"));
  CHECK(Registry_applyKnobs(v, "split=auto", &a, false, err, sizeof err));

  /* A sweep: values in the order given, without repeats; the first knob given varies fastest. */
  KnobSweep sw;
  KnobSweep_init(&sw);
  CHECK(KnobSweep_add(v, "stages=3,2,3", &sw, false, err, sizeof err));
  CHECK(KnobSweep_add(v, "block_m=64,128", &sw, false, err, sizeof err));
  CHECK(!KnobSweep_add(v, "stages=2", &sw, false, err, sizeof err) && strstr(err, "set twice"));
  CHECK(KnobSweep_count(v, &sw) == 4);
  char *text = KnobSweep_format(v, &sw, Registry_knobIndex(v, "stages"));
  CHECKF(strcmp(text, "stages=3,2") == 0, "%s", text);
  free(text);
  const char *want[4] = {"block_m=64,block_n=64,warps=4,stages=3,split=1",
                         "block_m=64,block_n=64,warps=4,stages=2,split=1",
                         "block_m=128,block_n=64,warps=4,stages=3,split=1",
                         "block_m=128,block_n=64,warps=4,stages=2,split=1"};
  for (int i = 0; i < 4; i++) {
    KnobSweep_at(v, &sw, i, &a);
    Registry_formatKnobs(v, &a, buf, sizeof buf);
    CHECKF(strcmp(buf, want[i]) == 0, "combination %d: %s", i, buf);
  }
  KnobSweep_init(&sw);
  int st = Registry_knobIndex(v, "stages");
  CHECK(KnobSweep_add(v, "stages=2,", &sw, false, err, sizeof err) && sw.nvalues[st] == 1); /* a trailing comma ends it */
  KnobSweep_init(&sw);
  CHECK(!KnobSweep_add(v, ",stages=2", &sw, false, err, sizeof err) && strstr(err, "empty item"));
  CHECK(!KnobSweep_add(v, "stages=2,,3", &sw, false, err, sizeof err) && strstr(err, "empty item"));
}

int main(void) {
  test_text();
  test_typed();
  return Check_done("test_knobs");
}
