/* The command table (cmd/commands.h): every declaration is one the parser, the help, the man
 * page and the completions can use (unique names, no clash with -h, a choice list for every
 * choice, a sane range, positional arguments in an order that can be parsed), and the parser
 * hands exec checked values. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmd/commands.h"
#include "common/util.h"

static void test_declarations(void) {
  for (int i = 0; Command_table[i]; i++) {
    const Command *c = Command_table[i];
    const char *cn = c->name[0] ? c->name : "(tui)";
    CHECK(c->summary && c->summary[0] && c->description && c->description[0] && c->exec);
    CHECK(c->noptions <= CMD_MAX_OPTIONS);
    CHECK(i == 0 ? c == &Cmd_tui : c->name[0] != '\0');
    CHECK(c->name[0] == '\0' || Command_find(c->name) == c);
    for (int k = 0; k < c->noptions; k++) {
      const CommandOption *o = &c->options[k];
      if (!o->name || !o->help) {
        fprintf(stderr, "%s: option %d has no name or help (enum and table out of step?)\n", cn, k);
        CHECK(false);
        continue;
      }
      CHECK(strcmp(o->name, "help") != 0 && o->short_name != 'h');
      CHECK(o->name[0] != '-' && !strchr(o->name, '=') && !strchr(o->name, ' '));
      CHECK((o->value == CMD_FLAG) == (o->arg == NULL));
      CHECK((o->value == CMD_CHOICE) == (o->choices != NULL));
      if (o->value == CMD_INT || o->value == CMD_NUMBER) CHECK(o->lo <= o->hi && o->hi > 0);
      CHECK(o->value != CMD_FLAG || o->complete == CMD_COMPLETE_NONE);
      CHECK(!((o->flags & CMD_OPT_REQUIRED) && (o->flags & CMD_OPT_HIDDEN)));
      for (int j = 0; j < k; j++) {
        if (!c->options[j].name) continue;
        if (strcmp(c->options[j].name, o->name) == 0 ||
            (o->short_name && c->options[j].short_name == o->short_name)) {
          fprintf(stderr, "%s: options %s and %s clash\n", cn, c->options[j].name, o->name);
          CHECK(false);
        }
      }
    }
    bool optional_seen = false;
    for (int k = 0; k < c->nargs; k++) {
      const CommandArg *g = &c->args[k];
      CHECK(g->name && g->help);
      if (g->flags & CMD_ARG_OPTIONAL) optional_seen = true;
      else CHECK(!optional_seen); /* a required argument after an optional one cannot be told apart */
      if (g->flags & CMD_ARG_REPEAT) CHECK(k == c->nargs - 1);
      if (g->choices) CHECK(g->complete == CMD_COMPLETE_CHOICES);
    }
  }
}

static char seen_text[64];
static long long seen_int;
static int seen_choice, seen_count, seen_npos;
static double seen_number;
static uint64_t seen_seed;

enum { T_TEXT, T_INT, T_NUMBER, T_CHOICE, T_REPEAT, T_FLAG, T_SEED, T_REQUIRED, T_NOPTS };

static const CommandOption t_options[] = {
  [T_TEXT] = {.name = "text", .short_name = 't', .value = CMD_TEXT, .arg = "X", .help = "x"},
  [T_INT] = {.name = "int", .short_name = 'i', .value = CMD_INT, .arg = "N", .help = "n",
             .lo = 1, .hi = 10},
  [T_NUMBER] = {.name = "number", .value = CMD_NUMBER, .arg = "X", .help = "x", .lo = 0, .hi = 5},
  [T_CHOICE] = {.name = "choice", .value = CMD_CHOICE, .arg = "C", .help = "c", .choices = "a|bb|c"},
  [T_REPEAT] = {.name = "repeat", .short_name = 'r', .value = CMD_TEXT, .arg = "X", .help = "x",
                .flags = CMD_OPT_REPEAT},
  [T_FLAG] = {.name = "flag", .value = CMD_FLAG, .help = "f"},
  [T_SEED] = {.name = "seed", .value = CMD_UINT64, .arg = "N", .help = "n"},
  [T_REQUIRED] = {.name = "required", .short_name = 'q', .value = CMD_TEXT, .arg = "X",
                  .help = "x", .flags = CMD_OPT_REQUIRED},
};

static const CommandArg t_args[] = {
  {"FILE", "f", NULL, CMD_COMPLETE_FILE, 0},
  {"MORE", "m", NULL, CMD_COMPLETE_FILE, CMD_ARG_OPTIONAL | CMD_ARG_REPEAT},
};

static int T_exec(const CommandArgs *a) {
  Util_strlcpy(seen_text, CommandArgs_text(a, T_TEXT, "none"), sizeof seen_text);
  seen_int = CommandArgs_int(a, T_INT, -1);
  seen_number = CommandArgs_number(a, T_NUMBER, -1);
  seen_choice = CommandArgs_choice(a, T_CHOICE, -1);
  seen_count = CommandArgs_count(a, T_REPEAT);
  seen_seed = CommandArgs_uint64(a, T_SEED, 7);
  seen_npos = a->npos;
  if (seen_count == 2) CHECK(strcmp(CommandArgs_nth(a, T_REPEAT, 1), "second") == 0);
  return CommandArgs_has(a, T_FLAG) ? 42 : 0;
}

static const Command t_cmd = {.name = "t", .summary = "s", .description = "d",
                              .options = t_options, .noptions = T_NOPTS, .args = t_args,
                              .nargs = CMD_COUNT(t_args), .exec = T_exec};

/* Runs t_cmd on a NULL-terminated list of words (copied: getopt permutes argv). */
static int T_run(const char *first, ...) {
  char *argv[32];
  int argc = 0;
  va_list ap;
  va_start(ap, first);
  for (const char *w = first; w && argc < 31; w = va_arg(ap, const char *)) argv[argc++] = Util_xstrdup(w);
  va_end(ap);
  argv[argc] = NULL;
  seen_text[0] = '\0';
  seen_int = seen_npos = 0;
  fflush(stderr);
  int rc = Command_run(&t_cmd, argc, argv);
  for (int i = 0; i < argc; i++) free(argv[i]);
  return rc;
}

static void test_parser(void) {
  CHECK(T_run("t", "-q", "x", "file", NULL) == 0);
  CHECK(strcmp(seen_text, "none") == 0 && seen_int == -1 && seen_choice == -1 && seen_seed == 7);
  CHECK(T_run("t", "file", "--text=hello", "-i", "3", "--number", "2.5", "--choice", "bb",
              "-r", "first", "--repeat", "second", "--seed", "18446744073709551615", "-q", "x",
              "more", "andmore", NULL) == 0);
  CHECK(strcmp(seen_text, "hello") == 0 && seen_int == 3 && seen_number == 2.5 &&
        seen_choice == 1 && seen_count == 2 && seen_seed == UINT64_MAX && seen_npos == 3);
  CHECK(T_run("t", "-q", "x", "--flag", "f", NULL) == 42);
  CHECK(T_run("t", "-q", "x", "--fl", "f", NULL) == 42); /* a unique prefix */
  /* every error: exit 2, exec not run */
  CHECK(T_run("t", "-q", "x", NULL) == BT_EXIT_USAGE && seen_npos == 0);   /* missing FILE */
  CHECK(T_run("t", "f", NULL) == BT_EXIT_USAGE);                           /* missing -q */
  CHECK(T_run("t", "-q", "x", "f", "-i", "11", NULL) == BT_EXIT_USAGE);   /* out of range */
  CHECK(T_run("t", "-q", "x", "f", "-i", "3x", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "-i", "", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "--number", "nan", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "--number", "inf", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "--choice", "b", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "--seed", "-1", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "--seed", "18446744073709551616", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "--flag=1", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "--bogus", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "-z", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "--text", NULL) == BT_EXIT_USAGE);     /* no value */
  CHECK(T_run("t", "-q", "x", "f", "-i", NULL) == BT_EXIT_USAGE);
  CHECK(T_run("t", "-q", "x", "f", "--re", "y", NULL) == BT_EXIT_USAGE);  /* --repeat or --required */
  CHECK(T_run("t", "--help", NULL) == 0 && seen_npos == 0);              /* help needs nothing else */
  CHECK(T_run("t", "-q", "x", "--", "-f", NULL) == 0 && seen_npos == 1);  /* "--" ends the options */
}

int main(void) {
  test_declarations();
  test_parser();
  return Check_done("commands");
}
