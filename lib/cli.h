/* cli: the one option parser of every linkopt program.  A program describes
   its options in a table; cli_parse reads argv by it (--name=VALUE and
   --name VALUE alike), answers --help with a usage text generated from the
   table and --version, and reports every usage error as "prog: what" plus
   "Try 'prog --help' for more information." with exit status 2.  Programs
   with subcommands dispatch from a table (cli_dispatch), each subcommand
   with its own options: an option a subcommand does not take is an error. */
#ifndef LINKOPT_CLI_H
#define LINKOPT_CLI_H

/* The option vocabulary: one thing has one name in every program, and
   tests/t-cli.sh checks every program's --help against these rules.

   - The file a program writes is -o/--output FILE (pagein, linkopt report,
     linkopt-bolt, likely-check profile and macros).  An option named
     --output always takes FILE and is that file, and -o is always it.
     The one exception is deporder: its operands are an ld command line, in
     which -o and --output are ld's, so it writes to --out FILE.  No other
     program lists --out or --out-file.
   - A read-ahead is --read-ahead-kb N, in KiB as
     /sys/block/DEV/queue/read_ahead_kb holds it (cli_read_ahead_kb), be it
     a device's (pfstat) or the model's (deporder, pagein-report, linkopt
     report, linkopt-startup); a variant keeps the ending
     (--placement-read-ahead-kb N).  No other spelling of read-ahead.
   - A boolean is a flag, no value: --foo turns on what is off by default,
     --no-foo turns off what is on by default; never --foo=yes|no.  The
     exception is pagein, whose --code, --data, --branches,
     --trace-children and --demangle are the valgrind tool's own yes|no
     options, written as valgrind's users write them.
   - A choice among words is --foo=A|B (CLI_CHOICE); the form of what a
     program prints is --format=text|json (deporder: list|members|json).
   - A folder a program writes several files into is --dir DIR; the outputs
     of a build to work on are --target NAME (linkopt-startup).
   - -h is --help, -q is --quiet, -v is --verbose, -o is --output.
   - A renamed option keeps its old spelling as a hidden alias: a second
     cli_option on the same target with help NULL, accepted and never
     listed (pagein --out-file, linkopt report --out, likely-check --out,
     pfstat --device-readahead and --output, pgo-run --output,
     linkopt-startup --output). */

#include <stdbool.h>
#include <stddef.h>

enum cli_kind {
	CLI_FLAG,   /* no value: *(bool *)target = true */
	CLI_STRING, /* *(const char **)target = value (the last one given) */
	CLI_LIST,   /* repeatable: value appended to *(struct cli_list *)target */
	CLI_CHOICE, /* value is one of choices: *(int *)target = its index */
	CLI_CALL,   /* set(target, value): NULL, or what is wrong with value */
};

/* What a CLI_LIST option collected, in command-line order (argv's strings). */
struct cli_list {
	const char **items;
	size_t count, capacity;
};

struct cli_option {
	const char *name;           /* "--seed"; NULL ends a table */
	char short_name;            /* 'q' for -q, or 0 */
	enum cli_kind kind;
	void *target;
	const char *value_name;     /* "SYM" in the usage text (all kinds but CLI_FLAG) */
	const char *help;           /* lines separated by '\n'; NULL: not listed */
	const char *const *choices; /* CLI_CHOICE: NULL-terminated */
	/* CLI_CALL (and CLI_FLAG, called with value NULL when set): stores
	   value; returns NULL, or why value is wrong ("is not a number"). */
	const char *(*set)(void *target, const char *value);
	bool repeatable;            /* CLI_CALL: shown as "..." in the synopsis */
};

enum {
	CLI_STOP_AT_OPERAND = 1, /* options end at the first operand (a command to run) */
	CLI_KEEP_SEPARATOR = 2,  /* "--" stays among the operands (options end there) */
};

struct cli_command {
	const char *name;          /* "deporder", or "pgo-run status" */
	const char *operands;      /* synopsis after the options: "[--] INPUTS..." */
	const char *also;          /* more synopsis lines (after the name), '\n' between, or NULL */
	const char *description;   /* paragraphs after the synopsis, or NULL */
	const struct cli_option *options;
	const char *footer;        /* after the options (exit status...), or NULL */
	unsigned flags;            /* CLI_STOP_AT_OPERAND, CLI_KEEP_SEPARATOR */
	/* An option that is not in the table but for which pass_option returns
	   true is kept as an operand (deporder's ld options); with it, -h means
	   --help only as the sole argument. */
	bool (*pass_option)(const char *arg);
	int min_operands;          /* fewer operands: a usage error saying missing */
	const char *missing;       /* "no data file given" */
};

/* Parses argv[1..argc-1] by cmd: options go to their targets, operands (in
   order, argv's own strings, NULL-terminated) to *operands; returns their
   number.  Prints the usage text and exits 0 for --help (-h), prints the
   version and exits 0 for --version; a usage error exits 2. */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, char ***operands);

/* Writes cmd's usage text (synopsis, description, options, footer) to f. */
void cli_usage(const struct cli_command *cmd, void *f);

/* Prints "prog: " fmt... and "Try 'NAME --help' for more information." on
   stderr, NAME being the command (or subcommand) last parsed; exits 2. */
void cli_usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

struct cli_subcommand {
	const char *name;                  /* NULL ends a table */
	const char *summary;               /* one line for the program's --help */
	const struct cli_command *command; /* its synopsis, for the program's --help */
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
};

struct cli_program {
	const char *name;                 /* "pgo-run" */
	const char *description;          /* after the synopsis lines, or NULL */
	const struct cli_subcommand *commands;
	/* Runs when argv[1] is not a subcommand (pgo-run WORKLOAD...), with
	   the whole argv; NULL: a subcommand is required. */
	const struct cli_subcommand *fallback;
	const char *footer;
};

/* Runs the subcommand argv[1] names with argv + 1; answers --help and
   --version for the program; an unknown subcommand is a usage error.  A
   fallback command that is given an operand naming a subcommand is
   refused too ("'status' is a command: put it first"). */
int cli_dispatch(const struct cli_program *program, int argc, char **argv);

/* Value checks for CLI_CALL setters: true when s is all of an unsigned
   decimal number (fits unsigned long) or a finite number. */
bool cli_unsigned(const char *s, unsigned long *value);
bool cli_number(const char *s, double *value);

/* A read-ahead in KiB, as /sys/block/DEV/queue/read_ahead_kb holds it
   (0 to 1048576), for the options that take one: NULL with *kb set, or
   what is wrong with s (a CLI_CALL setter's message). */
const char *cli_read_ahead_kb(const char *s, unsigned long *kb);

/* The size of deporder's segments of untraced code, in KiB (a multiple of
   4 from 4 to 1048576), for --untraced-segment-kb: NULL with *kb set, or
   what is wrong with s. */
const char *cli_untraced_segment_kb(const char *s, unsigned long *kb);

#endif
