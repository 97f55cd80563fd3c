/* The command line, declared once (as tmux does it): one file per command, each defining a
 * `const Command` that carries its options, positional arguments and help text, listed in
 * the table in cmd/table.c. From that table, and nowhere else, come the parsing
 * (getopt_long), `benchtop CMD --help`, every usage error ("benchtop run: unknown option
 * --set; see benchtop run --help"), the man page and the bash and zsh completions (generated
 * at build time by the hidden `benchtop generate`, see cmd/command_docs.c).
 *
 * Adding a command:
 *   1. cmd/cmd_NAME.c with an enum of its options, the options table, the positional
 *      arguments, an exec function, and `const Command Cmd_NAME = {...}` (copy cmd_show.c);
 *   2. `extern const Command Cmd_NAME` below, `&Cmd_NAME` in Command_table (cmd/table.c),
 *      the file in cmd/meson.build (cmd_gpu_sources if it needs CUDA to do its work);
 *   3. a line in README.md's "Command line"; the man page and completions follow by themselves.
 * Adding an option to a command:
 *   1. a name in the command's enum (CMD_OPTION_INDEX order) and a line in its options table
 *      at that index: long name, short letter or 0, kind of value, argument name, one-line
 *      help, and for CMD_CHOICE the choices, for CMD_INT/CMD_NUMBER the range;
 *   2. read it in exec with CommandArgs_has/_text/_int/_number/_choice (values arrive checked
 *      against the declared kind and range: exec never sees "--reps abc");
 *   3. nothing else: --help, the man page and the completions list it from the table.
 * Errors found later in exec (a bad shape, an unknown variant) go through Command_usageError
 * so that every usage error reads the same and exits 2. */
#ifndef BENCHTOP_COMMANDS_H
#define BENCHTOP_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/plan.h"

/* What an option's value must be; the parser checks it before exec runs. */
typedef enum CommandValue {
  CMD_FLAG,    /* no value */
  CMD_TEXT,    /* any text */
  CMD_INT,     /* a whole number from lo to hi */
  CMD_UINT64,  /* a whole number from 0 to 2^64-1 (seeds) */
  CMD_NUMBER,  /* a finite real number from lo to hi */
  CMD_CHOICE,  /* one of the words in choices ("table|json|csv|md") */
} CommandValue;

/* What the shell completions offer for an option's value or a positional argument. */
typedef enum CommandComplete {
  CMD_COMPLETE_NONE,
  CMD_COMPLETE_FILE,     /* file names */
  CMD_COMPLETE_SESSION,  /* *.json files (and directories) */
  CMD_COMPLETE_DIR,      /* directories */
  CMD_COMPLETE_VARIANTS, /* variant names, comma-separated, or all (benchtop list variants --names) */
  CMD_COMPLETE_VARIANT,  /* one variant name */
  CMD_COMPLETE_SHAPES,   /* comma-separated shape presets (benchtop list shapes --names) */
  CMD_COMPLETE_CHOICES,  /* the choices (implied for CMD_CHOICE) */
  CMD_COMPLETE_COMMAND,  /* a command name */
  CMD_COMPLETE_KINDS,    /* how many kinds there are (not a kind) */
} CommandComplete;

enum {
  CMD_OPT_REQUIRED = 1u << 0, /* the command cannot run without it */
  CMD_OPT_REPEAT = 1u << 1,   /* may be given more than once; every value is kept */
  CMD_OPT_HIDDEN = 1u << 2,   /* parsed, but in no help, man page or completion */
};

typedef struct CommandOption {
  const char *name;     /* long name, without "--" */
  char short_name;      /* 0: long name only */
  CommandValue value;
  const char *arg;      /* what the value is called in usage and help ("N", "SESSION.json") */
  const char *help;     /* one line, lower case, no full stop */
  const char *choices;  /* CMD_CHOICE (and CMD_COMPLETE_CHOICES): "a|b|c" */
  double lo, hi;        /* CMD_INT, CMD_NUMBER: the accepted range */
  CommandComplete complete;
  unsigned flags;       /* CMD_OPT_* */
} CommandOption;

enum {
  CMD_ARG_OPTIONAL = 1u << 0, /* may be left out (only the last ones) */
  CMD_ARG_REPEAT = 1u << 1,   /* the last argument: may be given several times */
};

/* A positional argument. */
typedef struct CommandArg {
  const char *name;    /* "SESSION.json"; for a choice "variants|shapes|metrics" */
  const char *help;
  const char *choices; /* the argument must be one of these words ("a|b|c"), or NULL */
  CommandComplete complete;
  unsigned flags;      /* CMD_ARG_* */
} CommandArg;

enum {
  CMD_HIDDEN = 1u << 0,   /* for benchtop itself or developers: in no help, man page or completion */
  CMD_NEEDS_GPU = 1u << 1, /* does its work on a CUDA device (the man page says so) */
};

struct CommandArgs;

typedef struct Command {
  const char *name;
  const char *summary;     /* one line for `benchtop --help` */
  const char *description; /* paragraphs for `CMD --help` and the man page ("\n\n" between) */
  const CommandOption *options; /* indexed by the command's option enum */
  int noptions;
  const CommandArg *args;
  int nargs;
  unsigned flags;          /* CMD_* */
  int (*exec)(const struct CommandArgs *a); /* returns the exit code (BT_EXIT_*) */
} Command;

#define CMD_MAX_OPTIONS 32
#define CMD_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* What the parser hands exec: the values of the options given, checked against their
 * declaration, and the positional arguments. */
typedef struct CommandArgs {
  const Command *cmd;
  int count[CMD_MAX_OPTIONS];          /* how many times each option was given */
  const char *text[CMD_MAX_OPTIONS];   /* the last value given */
  const char **all[CMD_MAX_OPTIONS];   /* CMD_OPT_REPEAT: every value, in order */
  long long ivalue[CMD_MAX_OPTIONS];   /* CMD_INT; CMD_CHOICE: the index of the choice */
  uint64_t uvalue[CMD_MAX_OPTIONS];    /* CMD_UINT64 */
  double dvalue[CMD_MAX_OPTIONS];      /* CMD_NUMBER */
  int npos;
  char **pos;                          /* positional arguments */
} CommandArgs;

bool CommandArgs_has(const CommandArgs *a, int opt);
const char *CommandArgs_text(const CommandArgs *a, int opt, const char *fallback);
long long CommandArgs_int(const CommandArgs *a, int opt, long long fallback);
uint64_t CommandArgs_uint64(const CommandArgs *a, int opt, uint64_t fallback);
double CommandArgs_number(const CommandArgs *a, int opt, double fallback);
/* The index of the given choice in the option's choices, or fallback when absent. */
int CommandArgs_choice(const CommandArgs *a, int opt, int fallback);
/* CMD_OPT_REPEAT options: the number of values and the i-th one. */
int CommandArgs_count(const CommandArgs *a, int opt);
const char *CommandArgs_nth(const CommandArgs *a, int opt, int i);

/* Parses argv (argv[0] is the command's name) and runs the command: `--help` prints its help
 * and returns 0; a usage error prints one line and returns BT_EXIT_USAGE. */
int Command_run(const Command *c, int argc, char **argv);
/* In a viewer build (common/gpu_build.h): says in one line that CMD needs a GPU build;
 * returns BT_EXIT_NO_GPU. */
int Command_needsGpuBuild(const Command *c);
/* The exec of a command that cannot work at all without the CUDA libraries: in a viewer build
 * it is Command_execNeedsGpuBuild (Command_needsGpuBuild for the command being run), so the
 * command's own exec need not be compiled there. */
int Command_execNeedsGpuBuild(const CommandArgs *a);
#if BENCHTOP_GPU
#define CMD_GPU_BUILD_EXEC(exec) (exec)
#else
#define CMD_GPU_BUILD_EXEC(exec) Command_execNeedsGpuBuild
#endif
/* Prints "benchtop CMD: MESSAGE; see benchtop CMD --help" on stderr; returns BT_EXIT_USAGE. */
int Command_usageError(const Command *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `benchtop CMD --help` */
void Command_printHelp(const Command *c);
/* The usage line: "benchtop run -v VARIANTS -s SHAPES [options]". */
void Command_usage(const Command *c, char *buf, int size);
/* The i-th word of a "a|b|c" list into buf; false past the end. */
bool Command_choiceWord(const char *choices, int i, char *buf, int size);

/* --format, shared by the commands that print records; read it with Command_format. */
#define CMD_OPTION_FORMAT                                                                   \
  {.name = "format", .short_name = 'f', .value = CMD_CHOICE, .arg = "FORMAT",             \
   .help = "output format", .choices = "table|json|csv|md"}
int Command_format(const CommandArgs *a, int opt); /* an OutputFormat, FMT_TABLE when absent */

/* The timing options that run and tune share, with the plan's ranges (sessions/plan.h). */
#define CMD_OPTION_WARMUP                                                                   \
  {.name = "warmup", .short_name = 'w', .value = CMD_INT, .arg = "N",                     \
   .help = "warm-up launches before timing (at least 50 ms of them)",                      \
   .lo = PLAN_WARMUP_MIN, .hi = PLAN_WARMUP_MAX}
#define CMD_OPTION_GRAPH                                                                    \
  {.name = "graph", .value = CMD_FLAG, .help = "replay the timed launches from a CUDA graph"}
#define CMD_OPTION_TIMING                                                                   \
  {.name = "timing", .value = CMD_CHOICE, .arg = "CLOCK",                                 \
   .help = "time by kernel timestamps or by CUDA events around each launch",               \
   .choices = "kernel|events"}
/* --l2-persist: a persisting L2 window over input tensors while timed (bench/l2persist.h);
 * Command_l2Persist copies the word into the options. */
#define CMD_OPTION_L2_PERSIST                                                               \
  {.name = "l2-persist", .value = CMD_CHOICE, .arg = "TENSORS",                           \
   .help = "keep these inputs in persisting L2 lines during the timed launches",            \
   .choices = "kv|q|qkv|off"}
void Command_l2Persist(const CommandArgs *a, int opt, RunOptions *o);
/* --span: the timed launches of each record in blocks after pauses, over at least SEC seconds;
 * 0: back to back (bench/worker/measure_time.c). Command_span turns the number into RunOptions.span_s. */
#define CMD_OPTION_SPAN                                                                     \
  {.name = "span", .value = CMD_NUMBER, .arg = "SEC",                                        \
   .help = "time each record in eight blocks, each after a pause, spread over at least SEC "  \
           "seconds (large records pause by default; 0: back to back; docs/statistics.md)",  \
   .lo = 0, .hi = PLAN_SPAN_MAX}
void Command_span(const CommandArgs *a, int opt, RunOptions *o);
/* --devices: one worker per GPU of this host (bench/runner/runner_pool.h). */
#define CMD_OPTION_DEVICES                                                                  \
  {.name = "devices", .value = CMD_TEXT, .arg = "all|I,J,...",                            \
   .help = "run on several GPUs of this host, one worker each (CUDA device indices)"}
#define CMD_OPTION_WATCHDOG                                                                 \
  {.name = "watchdog", .value = CMD_INT, .arg = "SEC",                                    \
   .help = "kill a launch that runs longer than this",                                     \
   .lo = PLAN_WATCHDOG_MIN, .hi = PLAN_WATCHDOG_MAX}

/* --kernels DIR, shared by the commands that read variants: one more directory on the kernel
 * path (docs/kernel-declarations.md), after BENCHTOP_KERNEL_PATH's. Command_kernelDirs adds
 * every one given to BENCHTOP_KERNEL_PATH (made absolute), so that the worker this process
 * starts sees the same variants; call it before the first variant is looked up. */
#define CMD_OPTION_KERNELS                                                                   \
  {.name = "kernels", .value = CMD_TEXT, .arg = "DIR",                                      \
   .help = "also load the kernels (.cu files) in DIR; may be repeated",                     \
   .complete = CMD_COMPLETE_DIR, .flags = CMD_OPT_REPEAT}
void Command_kernelDirs(const CommandArgs *a, int opt);

extern const Command Cmd_tui, Cmd_help, Cmd_run, Cmd_tune, Cmd_list, Cmd_show, Cmd_diff,
    Cmd_merge, Cmd_replay, Cmd_checkKernels, Cmd_new, Cmd_worker, Cmd_benchMetrics, Cmd_generate,
    Cmd_tuneTable, Cmd_bundle, Cmd_best;
extern const Command Cmd_plot;
/* Every command (Cmd_tui, the one without a name, first), NULL-terminated. */
extern const Command *const Command_table[];
const Command *Command_find(const char *name);
typedef struct CommandExitCode {
  const char *code, *meaning;
} CommandExitCode;
extern const CommandExitCode Command_exitCodes[]; /* {NULL, NULL}-terminated */
/* `benchtop --help`: the commands and their summaries. */
void Command_printOverview(void);

/* The man page, the bash completion and the zsh completion, written from the table. */
void CommandDocs_man(FILE *out);
void CommandDocs_bash(FILE *out);
void CommandDocs_zsh(FILE *out);

#endif
