/* benchtop plot: a session's roofline, sweep or tune chart (sessions/chart.h) as a standalone
 * SVG file, or as text on stdout (-o -). The TUI's chart view draws the same chart. Needs no
 * GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "common/text.h"
#include "common/util.h"
#include "sessions/chart.h"
#include "sessions/chart_grid.h"
#include "sessions/session.h"
#include "tui/columns.h"
#include "tui/query.h"

enum { PLOT_KIND, PLOT_X, PLOT_Y, PLOT_FILTER, PLOT_OUT, PLOT_WIDTH, PLOT_HEIGHT, PLOT_ASCII,
       PLOT_NOPTS };

static const CommandOption plot_options[] = {
  [PLOT_KIND] = {.name = "kind", .short_name = 'k', .value = CMD_CHOICE, .arg = "KIND",
                 .help = "which chart (default roofline)", .choices = "roofline|sweep|tune"},
  [PLOT_X] = {.name = "x", .value = CMD_TEXT, .arg = "AXIS",
              .help = "sweep: the x axis, S, B, H, D, BH or a knob (default: the first that varies)"},
  [PLOT_Y] = {.name = "y", .value = CMD_TEXT, .arg = "COLUMN",
              .help = "sweep: the column plotted, as the filter names it (default p50)"},
  [PLOT_FILTER] = {.name = "filter", .value = CMD_TEXT, .arg = "QUERY",
                   .help = "only the records that match, as the TUI's filter (\"mma S>=1024\")"},
  [PLOT_OUT] = {.name = "output", .short_name = 'o', .value = CMD_TEXT, .arg = "FILE.svg",
                .help = "the SVG file to write, or - for a text chart on stdout",
                .complete = CMD_COMPLETE_FILE, .flags = CMD_OPT_REQUIRED},
  [PLOT_WIDTH] = {.name = "width", .value = CMD_INT, .arg = "COLS",
                  .help = "text chart: columns (default 100)", .lo = CHART_MIN_COLS, .hi = 1000},
  [PLOT_HEIGHT] = {.name = "height", .value = CMD_INT, .arg = "ROWS",
                   .help = "text chart: rows (default 30)", .lo = CHART_MIN_ROWS, .hi = 1000},
  [PLOT_ASCII] = {.name = "ascii", .value = CMD_FLAG,
                  .help = "text chart: plain ASCII, no braille (also BENCHTOP_ASCII=1)"},
};

static const CommandArg plot_args[] = {
  {"SESSION.json", "the session to plot", NULL, CMD_COMPLETE_SESSION, 0},
};

typedef struct PlotColumn {
  int col;
} PlotColumn;

static double Plot_column(const Record *r, void *ctx) {
  return Columns_value(r, (ColumnId)((PlotColumn *)ctx)->col);
}

/* The session's records that pass the filter; NULL with a usage error said. */
static int *Plot_records(const CommandArgs *a, const Session *s, int *n) {
  Query q;
  char err[256];
  if (!Query_parse(CommandArgs_text(a, PLOT_FILTER, ""), &q, err, sizeof err)) {
    Command_usageError(a->cmd, "--filter %s", err);
    return NULL;
  }
  int *idx = Util_xcalloc((size_t)s->nrecords + 1, sizeof *idx);
  *n = 0;
  for (int i = 0; i < s->nrecords; i++)
    if (Query_match(&q, &s->records[i])) idx[(*n)++] = i;
  return idx;
}

static bool Plot_asciiWanted(const CommandArgs *a) {
  const char *env = getenv("BENCHTOP_ASCII");
  if (CommandArgs_has(a, PLOT_ASCII) || (env && env[0] == '1')) return true;
  const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
  for (int i = 0; i < 3; i++) {
    const char *v = getenv(names[i]);
    if (v && v[0]) return !(strstr(v, "UTF-8") || strstr(v, "utf8") || strstr(v, "UTF8"));
  }
  return true;
}

static int Plot_write(const CommandArgs *a, const Chart *c) {
  const char *out = CommandArgs_text(a, PLOT_OUT, "-");
  char err[1024];
  if (strcmp(out, "-") == 0) {
    ChartGrid g;
    if (!ChartGrid_render(c, (int)CommandArgs_int(a, PLOT_WIDTH, 100),
                          (int)CommandArgs_int(a, PLOT_HEIGHT, 30), Plot_asciiWanted(a), &g, err,
                          sizeof err)) {
      fprintf(stderr, "benchtop plot: %s\n", err);
      return BT_EXIT_FAILED;
    }
    char *text = ChartGrid_text(&g);
    fputs(text, stdout); /* the grid holds printable ASCII and chart glyphs only */
    free(text);
    ChartGrid_free(&g);
    return BT_EXIT_OK;
  }
  size_t len = strlen(out);
  if (len < 5 || strcmp(out + len - 4, ".svg") != 0) {
    Command_usageError(a->cmd, "-o %s: the file must end in .svg (or be - for text)", out);
    return BT_EXIT_USAGE;
  }
  char *svg = Chart_svg(c, &len);
  bool ok = Util_writeFileAtomic(out, svg, len, err, sizeof err);
  free(svg);
  if (!ok) {
    char line[1200];
    fprintf(stderr, "benchtop plot: %s\n", Text_sanitize(line, sizeof line, err));
    return BT_EXIT_FAILED;
  }
  return BT_EXIT_OK;
}

static int Plot_exec(const CommandArgs *a) {
  Session s;
  char err[1024];
  if (!Session_load(a->pos[0], &s, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return BT_EXIT_FAILED;
  }
  Columns_noteSession(&s);
  ChartKind kind = (ChartKind)CommandArgs_choice(a, PLOT_KIND, CHART_ROOFLINE);
  int n = 0;
  int *idx = Plot_records(a, &s, &n);
  if (!idx) {
    Session_free(&s);
    return BT_EXIT_USAGE;
  }
  ChartInput in = {.session = &s, .records = idx, .nrecords = n, .cursor = -1,
                   .x_axis = CommandArgs_text(a, PLOT_X, NULL)};
  PlotColumn col = {-1};
  int rc = BT_EXIT_OK;
  if (CommandArgs_has(a, PLOT_Y)) {
    col.col = Columns_find(CommandArgs_text(a, PLOT_Y, ""));
    if (col.col < 0) rc = Command_usageError(a->cmd, "--y %s: no such column (benchtop list metrics)",
                                             CommandArgs_text(a, PLOT_Y, ""));
    in.y_value = Plot_column;
    in.y_ctx = &col;
    if (col.col >= 0) in.y_label = Columns[col.col].title;
  }
  char axes[CHART_AXES_MAX][CHART_AXIS_NAME];
  int naxes = Chart_sweepAxes(&in, axes, CHART_AXES_MAX), k = 0;
  while (in.x_axis && k < naxes && strcmp(axes[k], in.x_axis) != 0) k++;
  if (rc == BT_EXIT_OK && in.x_axis && k == naxes)
    rc = Command_usageError(a->cmd, "--x %s: not an axis of these records (S, B, H, D, BH or a "
                            "numeric knob they have)", in.x_axis);
  if (rc == BT_EXIT_OK) {
    Chart c;
    Chart_build(&c, kind, &in);
    rc = Plot_write(a, &c);
    if (rc == BT_EXIT_OK && c.plotted == 0) fprintf(stderr, "benchtop plot: %s\n", c.note);
    Chart_free(&c);
  }
  free(idx);
  Session_free(&s);
  return rc;
}

const Command Cmd_plot = {
  .name = "plot",
  .summary = "draw a session's roofline, sweep or tune chart as SVG, or as text (-o -)",
  .description = "Draws one chart of a saved session (docs/charts.md): roofline (achieved "
                 "TFLOP/s against arithmetic intensity under the device's ceilings, log-log), "
                 "sweep (p50 or --y COLUMN against --x AXIS, a line per variant and setting of "
                 "the rest) or tune (best p50 so far against measurements, per variant and shape "
                 "of a tune; winner W, tied T). -o FILE.svg writes a standalone SVG with axes, "
                 "ticks, legend and a title naming the device and date (atomically; only a "
                 "regular file is replaced); -o - prints the chart as text. The TUI's chart view "
                 "(g) draws the same charts. Needs no GPU.",
  .options = plot_options, .noptions = PLOT_NOPTS,
  .args = plot_args, .nargs = CMD_COUNT(plot_args),
  .exec = Plot_exec,
};
