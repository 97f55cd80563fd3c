/* The detail of one record: latency histogram and sparkline from the samples, the error
 * check, every metric (with its theoretical counterpart where one exists), build facts, clocks,
 * device and options, and the reason of a failure. Drawn full screen or in the side pane. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "sessions/datasheet.h"
#include "sessions/floors.h"
#include "sessions/knob_label.h"
#include "tui/tui.h"

/* A count or size as text, "n/a" when it was never measured (-1). buf: 24 bytes. */
static const char *Detail_count(char *buf, long long v) {
  if (v < 0) return "n/a";
  snprintf(buf, 24, "%lld", v);
  return buf;
}

/* A measured number, rounded, as text; "n/a" when it is NAN. buf: 24 bytes. */
static const char *Detail_whole(char *buf, double v) {
  if (isnan(v)) return "n/a";
  snprintf(buf, 24, fabs(v) < 1e9 ? "%.0f" : "%.4g", v); /* 1e308 in 24 bytes, not 309 digits */
  return buf;
}

static const char *const Detail_blocks[9] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                             "\u2585", "\u2586", "\u2587", "\u2588"};
static const char Detail_ascii[9] = {' ', '.', '.', ':', ':', '+', '+', '#', '#'};

static void Detail_cell(Page *p, App *a, int level, ThemeElem el) {
  if (level < 0) level = 0;
  if (level > 8) level = 8;
  if (a->ascii || !a->utf8) Page_text(p, el, "%c", Detail_ascii[level]);
  else Page_text(p, el, "%s", Detail_blocks[level]);
}

/* Histogram of the samples, `rows` text rows tall, with min and max under it. */
static void Detail_histogram(Page *p, App *a, const Timing *t, int width, int rows) {
  int bins = width - 4;
  if (bins > 60) bins = 60;
  if (bins < 8 || t->nsamples < 2 || !t->samples) return;
  double lo = t->samples[0], hi = t->samples[0];
  for (int i = 1; i < t->nsamples; i++) {
    if (t->samples[i] < lo) lo = t->samples[i];
    if (t->samples[i] > hi) hi = t->samples[i];
  }
  int *count = Util_xcalloc((size_t)bins, sizeof *count);
  int maxc = 0;
  for (int i = 0; i < t->nsamples; i++) {
    int b = hi > lo ? (int)((t->samples[i] - lo) / (hi - lo) * (bins - 1) + 0.5) : 0;
    if (b < 0) b = 0;
    if (b >= bins) b = bins - 1;
    if (++count[b] > maxc) maxc = count[b];
  }
  Page_text(p, TH_TITLE, " latency histogram (%d launches)", t->nsamples);
  Page_newline(p);
  for (int r = rows - 1; r >= 0; r--) {
    Page_text(p, TH_NORMAL, "  ");
    for (int b = 0; b < bins; b++) {
      int eighths = maxc ? (int)((double)count[b] * rows * 8 / maxc + 0.5) : 0;
      Detail_cell(p, a, eighths - r * 8, TH_ACCENT);
    }
    Page_newline(p);
  }
  char l[32], h[32];
  Columns_number(lo, l, sizeof l);
  Columns_number(hi, h, sizeof h);
  Page_text(p, TH_DIM, "  %s us%*s%s us", l, bins - (int)strlen(l) - (int)strlen(h) - 6, "", h);
  Page_newline(p);
  free(count);
}

/* The samples in launch order, averaged down to the width: drift and warm-up show here. */
static void Detail_sparkline(Page *p, App *a, const Timing *t, int width) {
  int n = width - 12;
  if (n > t->nsamples) n = t->nsamples;
  if (n < 4 || !t->samples) return;
  double lo = INFINITY, hi = -INFINITY;
  double *avg = Util_xcalloc((size_t)n, sizeof *avg);
  for (int i = 0; i < n; i++) {
    int s = (int)((long)i * t->nsamples / n), e = (int)((long)(i + 1) * t->nsamples / n);
    double sum = 0;
    for (int k = s; k < e; k++) sum += t->samples[k];
    avg[i] = sum / (e - s);
    if (avg[i] < lo) lo = avg[i];
    if (avg[i] > hi) hi = avg[i];
  }
  Page_text(p, TH_DIM, "  in order ");
  for (int i = 0; i < n; i++)
    Detail_cell(p, a, hi > lo ? 1 + (int)((avg[i] - lo) / (hi - lo) * 7 + 0.5) : 4, TH_ACCENT);
  Page_newline(p);
  free(avg);
}

static void Detail_num(Page *p, const char *label, double v, const char *unit) {
  char buf[48];
  Columns_number(v, buf, sizeof buf);
  Page_text(p, TH_DIM, "%s ", label);
  Page_text(p, isnan(v) ? TH_NA : TH_NORMAL, "%s%s  ", buf, isnan(v) ? "" : unit);
}

/* Dim text wrapped at word boundaries into lines of width columns after an indent. */
static void Detail_wrapped(Page *p, int indent, const char *text, int width) {
  int room = width - indent - 2;
  if (room < 20) room = 20;
  while (*text) {
    int n = (int)strlen(text);
    if (n > room) {
      n = room;
      while (n > 0 && text[n] != ' ') n--;
      if (n == 0) n = room;
    }
    Page_text(p, TH_DIM, "%*s%.*s", indent, "", n, text);
    Page_newline(p);
    text += n;
    while (*text == ' ') text++;
  }
}

static void Detail_metrics(Page *p, const Record *r, int width) {
  if (r->metric_passes >= 0)
    Page_text(p, TH_TITLE, " Metrics (%d replay pass%s)", r->metric_passes,
              r->metric_passes == 1 ? "" : "es");
  else
    Page_text(p, TH_TITLE, " Metrics");
  Page_newline(p);
  if (r->nmetrics == 0) {
    Page_text(p, TH_NA, "  none collected (run with --metrics default, or counters unavailable)");
    Page_newline(p);
  }
  for (int i = 0; i < r->nmetrics; i++) {
    const Metric *m = &r->metrics[i];
    ColumnMetric ci;
    const ColumnMetric *info = Columns_metricInfo(m->name, &ci) ? &ci : NULL;
    char v[48];
    Columns_number(m->value, v, sizeof v);
    Page_text(p, TH_NORMAL, "  %-20s ", info ? info->label : "");
    Page_text(p, isnan(m->value) ? TH_NA : TH_ACCENT, "%10s %-4s", v,
              isnan(m->value) ? "" : m->unit[0] ? m->unit : info ? info->unit : "");
    if (strcmp(m->name, CATALOG_OCCUPANCY) == 0) {
      char th[48];
      Columns_number(r->occupancy_theoretical, th, sizeof th);
      Page_text(p, TH_DIM, " theoretical %s%%", th);
    }
    Page_text(p, TH_DIM, "  %s", m->name);
    if (isnan(m->value) && m->reason[0]) Page_text(p, TH_NA, "  (%s)", m->reason);
    Page_newline(p);
    const MetricInfo *cat = Catalog_find(m->name);
    if (cat && cat->explain) /* what it counts, where that is not what the name suggests */
      Detail_wrapped(p, 23, cat->help, width);
  }
  if (!Record_metric(r, CATALOG_OCCUPANCY) && !isnan(r->occupancy_theoretical)) {
    Page_text(p, TH_NORMAL, "  %-20s ", "theoretical occ.");
    Page_text(p, TH_ACCENT, "%10.1f %%", r->occupancy_theoretical);
    Page_newline(p);
  }
}

/* Where the p50 goes: each kernel's median and share, the idle gaps between them. */
static void Detail_kernels(Page *p, const Record *r, int width) {
  if (r->nkernels <= 0) return;
  int nw = 12; /* the names as wide as the longest, within the page */
  for (int i = 0; i < r->nkernels; i++)
    if ((int)strlen(r->kernels[i].name) > nw) nw = (int)strlen(r->kernels[i].name);
  if (nw > width - 28) nw = width - 28 > 12 ? width - 28 : 12;
  double sum = 0;
  for (int i = 0; i < r->nkernels; i++)
    sum += r->kernels[i].p50_us + (!isnan(r->kernels[i].gap_before_us) ? r->kernels[i].gap_before_us : 0);
  Page_text(p, TH_TITLE, " Kernels");
  Page_text(p, TH_DIM, " (medians over %d launches; kernels + gaps %.2f us, p50 %.2f us)",
            r->kernels[0].launches, sum, r->timing.p50);
  Page_newline(p);
  for (int i = 0; i < r->nkernels; i++) {
    const KernelSpan *k = &r->kernels[i];
    if (!isnan(k->gap_before_us)) { /* the first kernel's: since the previous run of a graph */
      Page_text(p, TH_DIM, "   %-*s %9.2f us  %s%s", nw, "(gap)", k->gap_before_us,
                k->gap_before_us < 0 ? "overlap" : "idle", i ? "" : " since the graph's previous run");
      Page_newline(p);
    }
    Page_text(p, TH_NORMAL, "   %-*.*s ", nw, nw, k->name);
    Page_text(p, TH_ACCENT, "%9.2f us", k->p50_us);
    if (!isnan(k->share)) Page_text(p, TH_DIM, "  %5.1f %%", k->share * 100);
    Page_newline(p);
  }
  Page_newline(p);
}

/* A measured ceiling with the datasheet's figure beside it: "656 TFLOP/s [datasheet 989: 66 %]". */
static void Detail_ceiling(Page *p, const char *what, double measured, double declared,
                           const char *unit) {
  Page_text(p, TH_NORMAL, "  %s ", what);
  if (!(measured > 0)) {
    Page_text(p, TH_NA, "n/a");
  } else {
    Page_text(p, TH_ACCENT, "%.0f", measured);
    Page_text(p, TH_NORMAL, " %s", unit);
  }
  if (declared > 0 && measured > 0)
    Page_text(p, TH_DIM, " [datasheet %.0f: %.0f %%]", declared, 100 * measured / declared);
  else if (declared > 0)
    Page_text(p, TH_DIM, " [datasheet %.0f]", declared);
}

/* How far the p50 is from what the device allows: the ceilings, the floors and the bound
 * nearest to the p50. */
static void Detail_floors(Page *p, const Record *r) {
  Floors f;
  Floors_compute(r, &f);
  if (!f.bound) return;
  const DeviceInfo *d = &r->device;
  Page_text(p, TH_TITLE, " Floors");
  Page_text(p, TH_DIM, " (from ceilings measured on this device, once, cached)");
  Page_newline(p);
  Detail_ceiling(p, "fp16 tensor", d->peak_tflops, f.declared_tflops, "TFLOP/s");
  Detail_ceiling(p, "  copy", d->peak_gbs, f.declared_gbs, "GB/s");
  Page_text(p, TH_NORMAL, "   empty kernel ");
  if (d->launch_us > 0) Page_text(p, TH_ACCENT, "%.2f us", d->launch_us);
  else Page_text(p, TH_NA, "n/a");
  Page_newline(p);
  Page_text(p, TH_NORMAL, "  ");
  Detail_num(p, "FLOP", f.flop_us, " us");
  Detail_num(p, "bytes", f.byte_us, " us");
  Detail_num(p, "launch", f.launch_us, " us");
  if (f.fp8_flops > 0)
    Page_text(p, TH_DIM, "(QK^T in fp8: half the FLOPs at %.1fx the fp16 rate)",
              Datasheet_fp8Ratio(d));
  Page_newline(p);
  Page_text(p, TH_NORMAL, "  p50 = ");
  Page_text(p, TH_ACCENT, "%.1fx", f.x_floor);
  Page_text(p, TH_NORMAL, " the largest floor, %s: nearest to %s-bound", Floors_boundLabel(&f),
            f.bound);
  Page_text(p, TH_DIM, "  achieved %.0f GB/s, %.0f TFLOP/s", f.achieved_gbs, r->timing.tflops);
  Page_newline(p);
  if (Shape_isDecode(&r->shape) && d->peak_gbs > 0 && f.achieved_gbs > 0) {
    Page_text(p, TH_NORMAL, "  decode (Sq <= %d against a longer cache): ", SHAPE_DECODE_MAX_SQ);
    Page_text(p, TH_ACCENT, "%.0f GB/s = %.0f %%", f.achieved_gbs, 100 * f.achieved_gbs / d->peak_gbs);
    Page_text(p, TH_NORMAL, " of the measured copy ceiling");
    Page_newline(p);
  }
  Page_newline(p);
}

/* What the record is: variant, knobs, shape, status, and why, how its knobs were chosen, and
 * its place in a tune. */
static void Detail_heading(Page *p, const Record *r) {
  char shape[64];
  Shape_format(&r->shape, shape, sizeof shape);
  ThemeElem st = r->status == REC_PASS ? TH_PASS : r->status == REC_NA ? TH_NA : TH_FAIL;
  Page_text(p, TH_TITLE_FOCUS, " %s ", r->variant);
  Page_text(p, TH_NORMAL, "%s  %s  ", r->knobs[0] ? r->knobs : "(no knobs)", shape);
  Page_text(p, st, "%s", Record_statusName(r->status));
  Page_newline(p);
  char label[RECORD_KNOBS_MAX], legend[512];
  KnobLabel_compact(r->variant, r->knobs, label, sizeof label);
  KnobLabel_legend(r->variant, legend, sizeof legend);
  if (KnobLabel_abbreviates(r->variant, r->knobs) && legend[0]) { /* how the tables abbreviate it */
    Page_text(p, TH_DIM, " in tables: %s  (%s)", label, legend);
    Page_newline(p);
  }
  if (r->reason[0]) {
    Page_text(p, r->status == REC_PASS ? TH_DIM : TH_FAIL, " reason: %s", r->reason);
    Page_newline(p);
  }
  if (r->knobs_auto[0] && (int)strlen(r->knobs_auto) + 8 <= p->width) {
    Page_text(p, TH_DIM, " knobs %s", r->knobs_auto); /* "auto from table ..." or "defaults: ..." */
    Page_newline(p);
  } else if (r->knobs_auto[0]) { /* a long note (a transfer, other conditions): every word shown */
    Page_text(p, TH_DIM, " knobs");
    Page_newline(p);
    Detail_wrapped(p, 3, r->knobs_auto, p->width);
  }
  if (r->tune.rank > 0) {
    Page_text(p, r->tune.winner ? TH_ACCENT : TH_NORMAL, " tune: rank %d of %d%s%s", r->tune.rank,
              r->tune.of, r->tune.winner ? ", the winner" : "",
              r->tune.tied ? ", tied with the winner (the samples cannot separate them)" : "");
    Page_newline(p);
  }
}

static void Detail_timing(Page *p, App *a, const Record *r, int width) {
  const Timing *t = &r->timing;
  Page_text(p, TH_TITLE, " Timing");
  Page_newline(p);
  Page_text(p, TH_NORMAL, "  ");
  Detail_num(p, "p50", t->p50, " us");
  Detail_num(p, "p90", t->p90, " us");
  Detail_num(p, "p99", t->p99, " us");
  Page_newline(p);
  Page_text(p, TH_NORMAL, "  ");
  Detail_num(p, "min", t->min, " us");
  Detail_num(p, "mean", t->mean, " us");
  Detail_num(p, "stddev", t->stddev, " us");
  Page_newline(p);
  Page_text(p, TH_NORMAL, "  ");
  Detail_num(p, "TFLOP/s", t->tflops, "");
  Detail_num(p, "of peak", t->peak_frac * 100.0, " %");
  Page_newline(p);
  if (Record_kernelClock(r)) {
    Page_text(p, TH_DIM, "  clock: kernel timestamps (CUPTI), first kernel start to last end;");
    Detail_num(p, " events around the launch p50", t->event_p50, " us");
  } else {
    Page_text(p, TH_DIM, "  clock: CUDA events around each launch%s%s%s",
              t->source_note[0] ? " (" : "", t->source_note, t->source_note[0] ? ")" : "");
  }
  Page_newline(p);
  Detail_histogram(p, a, t, width, 3);
  Detail_sparkline(p, a, t, width);
}

static void Detail_error(Page *p, const Record *r) {
  const ErrorStats *e = &r->error;
  Page_text(p, TH_TITLE, " Error against the reference");
  Page_newline(p);
  if (!e->checked) {
    Page_text(p, TH_NA, "  not checked");
  } else {
    Page_text(p, TH_NORMAL, "  ");
    Page_text(p, e->rel_l2 <= e->tolerance ? TH_PASS : TH_FAIL, "rel L2 %.2e", e->rel_l2);
    Page_text(p, TH_DIM, " (tolerance %.1e)  max abs %.2e  NaN %lld  Inf %lld  unwritten %lld",
              e->tolerance, e->max_abs, (long long)e->nan_count, (long long)e->inf_count,
              (long long)e->unwritten);
  }
}

static void Detail_build(Page *p, const Record *r) {
  const BuildInfo *b = &r->build;
  Page_text(p, TH_TITLE, " Build");
  Page_newline(p);
  char f[8][24]; /* a field that was never measured (-1, NAN) reads n/a, never "-1" or "nan" */
  if (b->regs < 0 && isnan(b->compile_ms) && !b->arch[0]) {
    Page_text(p, TH_NA, "  n/a (not built for this record)");
  } else {
    Page_text(p, TH_NORMAL, "  %s  regs %s  smem %s+%s B  stack %s B  spills st %s ld %s",
              b->arch[0] ? b->arch : "arch n/a", Detail_count(f[0], b->regs),
              Detail_count(f[1], b->smem_static), Detail_count(f[2], b->smem_dynamic),
              Detail_count(f[3], b->stack_bytes), Detail_count(f[4], b->spill_stores),
              Detail_count(f[5], b->spill_loads));
    Page_newline(p);
    Page_text(p, TH_DIM, "  compile %s ms (%s)  source %s", Detail_whole(f[6], b->compile_ms),
              b->cache_hit ? "cache hit" : "compiled", b->source_hash[0] ? b->source_hash : "n/a");
  }
}

static void Detail_clocks(Page *p, const Record *r) {
  char f[6][24];
  const Clocks *c = &r->clocks;
  Page_text(p, TH_TITLE, " Clocks");
  Page_newline(p);
  if (isnan(c->sm_mhz_before) && isnan(c->sm_mhz_after) && isnan(c->temp_c) && isnan(c->power_w))
    Page_text(p, TH_NA, "  n/a (not measured)");
  else
    Page_text(p, TH_NORMAL, "  SM %s -> %s MHz  mem %s -> %s MHz  %s C  %s W",
              Detail_whole(f[0], c->sm_mhz_before), Detail_whole(f[1], c->sm_mhz_after),
              Detail_whole(f[2], c->mem_mhz_before), Detail_whole(f[3], c->mem_mhz_after),
              Detail_whole(f[4], c->temp_c), Detail_whole(f[5], c->power_w));
  if (c->throttle_reasons >= 0)
    Page_text(p, c->throttle_reasons ? TH_WORSE : TH_DIM, "  throttle 0x%llx",
              (unsigned long long)c->throttle_reasons);
}

static void Detail_device(Page *p, const Record *r) {
  const DeviceInfo *d = &r->device;
  Page_text(p, TH_TITLE, " Device and options");
  Page_newline(p);
  Page_text(p, TH_NORMAL, "  %s  cc %d.%d  %d SMs  L2 %lld MB  driver %d  NVRTC %d.%d",
            d->name[0] ? d->name : "device n/a", d->cc_major, d->cc_minor, d->sm_count,
            (long long)(d->l2_bytes >> 20), d->driver_version, d->nvrtc_major, d->nvrtc_minor);
  Page_newline(p);
  Page_text(p, TH_DIM, "  reps %d  warm-up %d  cold L2 %s  graph %s  seed %llu  %s", r->opts.reps,
            r->opts.warmup, r->opts.cold_l2 ? "yes" : "no", r->opts.graph ? "yes" : "no",
            (unsigned long long)r->opts.seed, r->created);
  if (r->opts.l2_persist[0]) Page_text(p, TH_DIM, "  l2-persist %.8s", r->opts.l2_persist);
  Page_newline(p);
}

/* The whole record, section after section, each followed by a blank line. */
static void Detail_body(Page *p, App *a, const Record *r, int width) {
  Detail_heading(p, r);
  Page_newline(p);
  Detail_timing(p, a, r, width);
  Page_newline(p);
  Detail_error(p, r);
  Page_newline(p);
  Page_newline(p);
  Detail_metrics(p, r, width);
  Page_newline(p);
  Detail_kernels(p, r, width);
  Detail_floors(p, r);
  Detail_build(p, r);
  Page_newline(p);
  Page_newline(p);
  Detail_clocks(p, r);
  Page_newline(p);
  Page_newline(p);
  Detail_device(p, r);
}

void ViewDetail_drawIn(App *a, WINDOW *w, bool framed) {
  werase(w);
  const Record *r = Results_selected(a);
  int h = getmaxy(w), width = getmaxx(w);
  Draw_box(a, w, "Detail", a->screen == &View_detail);
  if (!r) {
    wattrset(w, Theme_attr(TH_DIM));
    Draw_clip(w, 1, 2, width - 4, "No record selected.");
    wnoutrefresh(w);
    return;
  }
  /* The length is known only after laying out; a scroll past the end (G) is clamped and the
   * page laid out again. */
  Page p;
  bool scrolls = !framed || a->screen == &View_detail;
  for (int pass = 0; pass < 2; pass++) {
    Page_begin(&p, a, w, scrolls ? a->detail.scroll : 0, 1, h - 2, 1, width - 2);
    Detail_body(&p, a, r, width - 2);
    int maxscroll = p.line - (h - 2);
    if (maxscroll < 0) maxscroll = 0;
    if (!scrolls || a->detail.scroll <= maxscroll) {
      if (scrolls && maxscroll > 0) {
        char pos[32];
        snprintf(pos, sizeof pos, " %d%% ", (a->detail.scroll * 100) / maxscroll);
        wattrset(w, Theme_attr(TH_BORDER));
        mvwaddstr(w, h - 1, width - (int)strlen(pos) - 2, pos);
      }
      break;
    }
    a->detail.scroll = maxscroll;
    werase(w);
    Draw_box(a, w, "Detail", a->screen == &View_detail);
  }
  wattrset(w, Theme_attr(TH_NORMAL));
  wnoutrefresh(w);
}

void ViewDetail_open(App *a, const View *back) {
  a->detail.back = back;
  a->detail.scroll = 0;
  View_show(a, &View_detail);
}

static void ViewDetail_scroll(App *a, int ch) {
  int page = a->rows - 4, *s = &a->detail.scroll;
  switch (ch) {
  case KEY_DOWN: case 'j': (*s)++; break;
  case KEY_UP: case 'k': if (*s > 0) (*s)--; break;
  case KEY_NPAGE: case ' ': *s += page; break;
  case KEY_PPAGE: *s = *s > page ? *s - page : 0; break;
  case KEY_HOME: case 'g': *s = 0; break;
  default: *s = 1 << 20; break; /* End, G: clamped when drawn */
  }
  a->dirty |= DIRTY_BODY;
}

/* Next/previous record without leaving the detail view. */
static void ViewDetail_step(App *a, int ch) {
  ListCursor_move(&a->results.cur, a->results.norder, ch == KEY_LEFT || ch == 'h' ? -1 : 1);
  a->detail.scroll = 0;
  a->dirty |= DIRTY_BODY;
}

static void ViewDetail_close(App *a, int ch) {
  (void)ch;
  View_show(a, a->detail.back);
}

static const KeyBinding ViewDetail_bindings[] = {
  {{KEY_UP, KEY_DOWN, 'k', 'j'}, "Up Down / k j", "j/k scroll", "scroll", ViewDetail_scroll},
  {{KEY_PPAGE, KEY_NPAGE, ' '}, "PgUp PgDn Space", NULL, "scroll a page", ViewDetail_scroll},
  {{KEY_HOME, 'g', KEY_END, 'G'}, "Home g / End G", NULL, "top / bottom", ViewDetail_scroll},
  {{KEY_LEFT, KEY_RIGHT, 'h', 'l'}, "Left Right / h l", "h/l prev/next",
   "previous / next record", ViewDetail_step},
  {{27, '\n', KEY_ENTER, 'q'}, "Esc / Enter / q", "Esc back", "back", ViewDetail_close},
};
static const KeyTable ViewDetail_keys = KEY_TABLE("Detail", ViewDetail_bindings);

static void ViewDetail_draw(App *a, unsigned dirty) {
  (void)dirty;
  ViewDetail_drawIn(a, a->w_body, false);
}

const View View_detail = {
  .name = "detail", .layer = VIEW_SCREEN, .keys = &ViewDetail_keys, .draw = ViewDetail_draw,
  .region = DIRTY_BODY | DIRTY_RESULTS | DIRTY_SIDE,
};
