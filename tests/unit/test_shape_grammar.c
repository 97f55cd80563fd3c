/* The problem grammar: valid strings parse to the fields they name and format back canonically;
 * invalid ones fail with a line naming the bad part; FLOP and byte counts per problem kind. */
#include <string.h>

#include "check.h"
#include "kernels/shape.h"

typedef struct GrammarCase {
  const char *text;
  /* Valid: the canonical format. Invalid: NULL. */
  const char *canonical;
  /* Valid: "B Hq Hkv Sq Skv D causal dtype". Invalid: a substring of the error. */
  const char *expect;
} GrammarCase;

static const GrammarCase Grammar_cases[] = {
  /* Today's strings, unchanged. */
  {"2x8x512x64", "2x8x512x64", "2 8 8 512 512 64 0 0"},
  {"2x8x512x64:causal", "2x8x512x64:causal", "2 8 8 512 512 64 1 0"},
  {"1x1x1x64", "1x1x1x64", "1 1 1 1 1 64 0 0"},
  {"1x2x4097x64", "1x2x4097x64", "1 2 2 4097 4097 64 0 0"},
  {"3x4x300x128:causal", "3x4x300x128:causal", "3 4 4 300 300 128 1 0"},
  {"1x1x16384x128", "1x1x16384x128", "1 1 1 16384 16384 128 0 0"},
  /* GQA, MQA, decode, chunked prefill, dtypes. */
  {"8x32/8x1/8192x128:bf16", "8x32/8x1/8192x128:bf16", "8 32 8 1 8192 128 0 1"},
  {"4x32/8x2048x128:causal:bf16", "4x32/8x2048x128:causal:bf16", "4 32 8 2048 2048 128 1 1"},
  {"4x32/8x2048x128:bf16:causal", "4x32/8x2048x128:causal:bf16", "4 32 8 2048 2048 128 1 1"},
  {"1x32/8x8192x128:causal:bf16", "1x32/8x8192x128:causal:bf16", "1 32 8 8192 8192 128 1 1"},
  {"2x16/1x1024x64", "2x16/1x1024x64", "2 16 1 1024 1024 64 0 0"},
  {"1x1/1x1x64", "1x1x1x64", "1 1 1 1 1 64 0 0"},
  {"2x8/8x512/512x64", "2x8x512x64", "2 8 8 512 512 64 0 0"},
  {"2x8x512x64:fp16", "2x8x512x64", "2 8 8 512 512 64 0 0"},
  {"2x8x512x64:causal:fp16", "2x8x512x64:causal", "2 8 8 512 512 64 1 0"},
  {"2x8x512x64:fp16:causal", "2x8x512x64:causal", "2 8 8 512 512 64 1 0"},
  {"1x8x1/4096x64:causal", "1x8x1/4096x64:causal", "1 8 8 1 4096 64 1 0"},
  {"2x32/8x512/4096x128:causal:bf16", "2x32/8x512/4096x128:causal:bf16",
   "2 32 8 512 4096 128 1 1"},
  {"1x4/2x16/16x32", "1x4/2x16x32", "1 4 2 16 16 32 0 0"},
  {"1x4x3/5x256:causal", "1x4x3/5x256:causal", "1 4 4 3 5 256 1 0"},
  {"1x1x1/16384x32:bf16", "1x1x1/16384x32:bf16", "1 1 1 1 16384 32 0 1"},
  {"1x1x8x96", "1x1x8x96", "1 1 1 8 8 96 0 0"},
  {"1x64/64x1x64", "1x64x1x64", "1 64 64 1 1 64 0 0"},
  /* Malformed or inconsistent, each naming its part. */
  {"1x1x16385x64", NULL, "S must be"},
  {"1x1x1/16385x64", NULL, "Skv must be"},
  {"0x1x1x64", NULL, "B must be"},
  {"2x8x512", NULL, "expected BxHq[/Hkv]xSq[/Skv]xD"},
  {"2x8x512x64:causa", NULL, "unknown suffix ':causa'"},
  {"2x8x512x60", NULL, "multiple of 8"},
  {"2x8x512x24", NULL, "from 32 to 256"},
  {"2x8x512x264", NULL, "D must be"},
  {"2x8x512x64 ", NULL, "unexpected ' '"},
  {"99999999999999999999x1x1x64", NULL, "B must be"},
  {"2x32/5x1x64", NULL, "Hq (32) must be a multiple of Hkv (5)"},
  {"2x8/16x1x64", NULL, "Hq (8) must be a multiple of Hkv (16)"},
  {"2x8/0x1x64", NULL, "Hkv must be"},
  {"2x8x512/256x64", NULL, "Sq (512) must not exceed Skv (256)"},
  {"2x8x512/256x64:causal", NULL, "Sq (512) must not exceed Skv (256)"},
  {"2x8x/512x64", NULL, "expected a number for S"},
  {"2x8/x512x64", NULL, "expected a number for Hkv"},
  {"2x8x512x64:causal:causal", NULL, "repeats :causal"},
  {"2x8x512x64:bf16:bf16", NULL, "repeats the dtype"},
  {"2x8x512x64:bf16:fp16", NULL, "repeats the dtype"},
  {"2x8x512x64:", NULL, "unknown suffix ':'"},
  {"2x8x512x64:fp32", NULL, "unknown suffix ':fp32'"},
  {"2x8x512x64:BF16", NULL, "unknown suffix ':BF16'"},
  {"2x8x512x64causal", NULL, "unexpected 'causal'"},
  {"2x8x512x64:causal ", NULL, "unknown suffix ':causal '"},
  {"2x8/8/8x512x64", NULL, "expected BxHq[/Hkv]xSq[/Skv]xD"},
  {"", NULL, "expected a number for B"},
  {"-1x8x512x64", NULL, "expected a number for B"},
  {"2x8x512x64x1", NULL, "unexpected 'x1'"},
};

static void Grammar_checkCase(const GrammarCase *c) {
  Shape s;
  char err[400] = "", buf[128], fields[128];
  bool ok = Shape_parse(c->text, &s, err, sizeof err);
  if (!c->canonical) {
    CHECKF(!ok && strstr(err, c->expect) && strstr(err, "bad shape"), "'%s' -> %s", c->text,
           ok ? "accepted" : err);
    return;
  }
  CHECKF(ok, "'%s': %s", c->text, err);
  if (!ok) return;
  Shape_format(&s, buf, sizeof buf);
  CHECKF(strcmp(buf, c->canonical) == 0, "'%s' formats as '%s'", c->text, buf);
  snprintf(fields, sizeof fields, "%d %d %d %d %d %d %d %d", s.B, s.H, Shape_hkv(&s), s.S,
           Shape_skv(&s), s.D, s.causal, (int)s.dtype);
  CHECKF(strcmp(fields, c->expect) == 0, "'%s' parses to %s", c->text, fields);
  Shape again;
  CHECKF(Shape_parse(buf, &again, err, sizeof err) && Shape_equal(&s, &again) &&
             memcmp(&s, &again, sizeof s) == 0,
         "'%s' round trip", buf);
}

static void Grammar_checkCounts(void) {
  Shape s;
  char err[400];
  /* Today's counts unchanged. */
  CHECK(Shape_parse("2x8x512x64:causal", &s, err, sizeof err));
  CHECK(Shape_flops(&s) == 0.5 * 4.0 * 2 * 8 * 512.0 * 512 * 64);
  CHECK(Shape_bytes(&s) == 2.0 * 4 * 2 * 8 * 512.0 * 64);
  CHECK(!Shape_isDecode(&s));
  /* Decode: one query against 8192 keys, K/V read once per KV head. */
  CHECK(Shape_parse("8x32/8x1/8192x128:bf16", &s, err, sizeof err));
  CHECK(Shape_flops(&s) == 4.0 * 8 * 32 * 1 * 8192 * 128);
  CHECK(Shape_bytes(&s) == 2.0 * (2.0 * 8 * 32 * 1 * 128 + 2.0 * 8 * 8 * 8192 * 128));
  CHECK(Shape_isDecode(&s));
  CHECK(Shape_elems(&s) == (size_t)8 * 32 * 128 && Shape_kvElems(&s) == (size_t)8 * 8 * 8192 * 128);
  /* Chunked prefill, bottom-right causal: 512 queries see 3585..4096 keys. */
  CHECK(Shape_parse("1x4/2x512/4096x64:causal", &s, err, sizeof err));
  CHECK(Shape_pairs(&s) == 512.0 * 4096 - 512.0 * 512 / 2);
  CHECK(!Shape_isDecode(&s));
  CHECK(Shape_parse("1x4x16/17x64", &s, err, sizeof err) && Shape_isDecode(&s));
  CHECK(Shape_parse("1x4x17/4096x64", &s, err, sizeof err) && !Shape_isDecode(&s));
  /* The compact table form shortens :causal only, never drops the dtype. */
  char buf[96];
  CHECK(Shape_parse("4x32/8x2048x128:bf16:causal", &s, err, sizeof err));
  Shape_formatCompact(&s, buf, sizeof buf);
  CHECKF(strcmp(buf, "4x32/8x2048x128:c:bf16") == 0, "%s", buf);
  CHECK(Shape_parse("2x8x512x64", &s, err, sizeof err));
  Shape_formatCompact(&s, buf, sizeof buf);
  CHECK(strcmp(buf, "2x8x512x64") == 0);
  /* Equality sees every field. */
  Shape a, b;
  CHECK(Shape_parse("2x8x512x64", &a, err, sizeof err));
  const char *differ[] = {"2x8/4x512x64", "2x8x512/1024x64", "2x8x512x64:bf16", "2x8x512x64:causal"};
  for (int i = 0; i < 4; i++)
    CHECKF(Shape_parse(differ[i], &b, err, sizeof err) && !Shape_equal(&a, &b), "%s", differ[i]);
  Shape positional = {.B = 2, .H = 8, .S = 512, .D = 64};
  CHECK(Shape_equal(&a, &positional));
}

int main(void) {
  int n = (int)(sizeof Grammar_cases / sizeof Grammar_cases[0]);
  CHECK(n >= 40);
  for (int i = 0; i < n; i++) Grammar_checkCase(&Grammar_cases[i]);
  Grammar_checkCounts();
  char err[400];
  Shape s;
  int kinds[4] = {0};
  for (int i = 0; i < Shape_presetCount; i++) {
    CHECKF(Shape_parse(Shape_presets[i], &s, err, sizeof err), "%s", err);
    kinds[0] += Shape_hkv(&s) < s.H;
    kinds[1] += Shape_isDecode(&s);
    kinds[2] += s.S > SHAPE_DECODE_MAX_SQ && s.S < Shape_skv(&s);
    kinds[3] += s.dtype == SHAPE_BF16;
  }
  CHECK(kinds[0] && kinds[1] && kinds[2] && kinds[3]);
  return Check_done("test_shape_grammar");
}
