/* pgo-run: drives gcc's or clang's profile-guided optimization cycle (instrumented
   build, training runs, merge and checks, optimized build, benchmark) and
   keeps the profile store honest. */
#include "cli.h"
#include "commands.h"
#include "cycle.h"
#include "merge.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pgo_options o = {
	.store_path = ".pgo", .gen_dir = ".", .use_dir = ".", .runs = 10, .top = 20,
};
static size_t workload_capacity;

static void add_workload(const char *command, double weight)
{
	struct workload *w = ARRAY_PUSH(o.workloads, o.nworkloads, workload_capacity);

	w->command = command;
	w->weight = weight;
}

static const char *set_weighted(void *target, const char *value)
{
	char *end;
	double weight = strtod(value, &end);

	(void)target;
	if (end == value || *end != ':' || !end[1] || !(weight > 0))
		return "is not W:WORKLOAD with W a positive number";
	add_workload(end + 1, weight);
	return NULL;
}

static const char *set_count(void *target, const char *value)
{
	unsigned long n;

	if (!cli_unsigned(value, &n) || n < 1 || n > 100000)
		return "is not a number from 1 to 100000";
	*(int *)target = (int)n;
	return NULL;
}

#define OPTION_STORE { "--store", 0, CLI_STRING, &o.store_path, "DIR", "the profile store (default .pgo)" }
#define OPTION_BUILD                                                                                \
	{ "--build", 0, CLI_STRING, &o.build, "CMD",                                               \
	  "build command (default: make); pgo-run's compiler wrapper,\n"                            \
	  "first on PATH, adds the flags to each compiler command;\n"                                \
	  "with the compiler and flags, it names the configuration" }
#define OPTION_CLEAN { "--clean", 0, CLI_STRING, &o.clean, "CMD", "clean command run before each build (default: make clean)" }
#define OPTION_USE_DIR { "--use-dir", 0, CLI_STRING, &o.use_dir, "DIR", "run the plain and optimized builds in DIR (default .)" }
#define OPTION_BENCH                                                                                \
	{ "--bench", 0, CLI_STRING, &o.bench, "CMD",                                               \
	  "run CMD with PGO_BIN set to the plain and to the PGO\n"                                   \
	  "program (each with its build's libraries), alternately" },                               \
	{ "--bench-program", 0, CLI_STRING, &o.output, "FILE", "the program --bench runs, as the build writes it" }, \
	{ "--output", 0, CLI_STRING, &o.output, "FILE", NULL }, /* the old spelling */ \
	{ "--runs", 0, CLI_CALL, &o.runs, "N", "benchmark runs of each build (default 10)", .set = set_count }

static const struct cli_option cycle_options[] = {
	{ "--weight", 0, CLI_CALL, 0, "W:WORKLOAD", "a workload whose counts weigh W (default 1)", .set = set_weighted,
	  .repeatable = true },
	OPTION_BUILD,
	OPTION_CLEAN,
	{ "--gen-dir", 0, CLI_STRING, &o.gen_dir, "DIR", "run the instrumented build in DIR (default .)" },
	OPTION_USE_DIR,
	OPTION_STORE,
	{ "--retrain-if-stale", 0, CLI_FLAG, &o.retrain_if_stale, 0,
	  "reuse the profile unless a source changed since training" },
	OPTION_BENCH,
	{ 0 }
};

static const char exit_status[] =
	"Exit status: 0 success, 1 a failed step or a finding (a stale profile,\n"
	"coverage-mismatch warnings), 2 wrong usage.\n";

static const struct cli_command cycle_command = {
	.name = "pgo-run",
	.operands = "[WORKLOAD]...",
	.description =
		"Builds the project instrumented, runs every WORKLOAD (a shell command; its\n"
		"exit status is checked), merges and checks the profile, installs it in the\n"
		"store and rebuilds the project optimized with it.  A failed step stops the\n"
		"cycle and leaves the profile in use untouched.\n",
	.options = cycle_options,
	.footer = exit_status,
};

static const struct cli_option build_options[] = {
	OPTION_BUILD, OPTION_CLEAN, OPTION_USE_DIR, OPTION_STORE, OPTION_BENCH, { 0 }
};

static const struct cli_command build_command = {
	.name = "pgo-run build",
	.description = "The optimized build with the profile in use, no training.\n",
	.options = build_options,
	.footer = exit_status,
};

static const char *const formats[] = { "text", "json", NULL };
static int format;
#define OPTION_FORMAT \
	{ "--format", 0, CLI_CHOICE, &format, 0, "text (default) or json (format linkopt-pgo-status\n" \
	  "or linkopt-pgo-show, version 1: see pgo-run(1))", formats }

static const struct cli_option status_options[] = { OPTION_BUILD, OPTION_STORE, OPTION_FORMAT, { 0 } };

static const struct cli_command status_command = {
	.name = "pgo-run status",
	.description = "Which profile is in use, how old it is, the sources changed since it was\n"
		       "trained, the objects without data.\n",
	.options = status_options,
	.footer = exit_status,
};

static const struct cli_option show_options[] = {
	OPTION_BUILD, OPTION_STORE, OPTION_FORMAT,
	{ "--top", 0, CLI_CALL, &o.top, "N", "how many functions (default 20)", .set = set_count },
	{ 0 }
};

static const struct cli_command show_command = {
	.name = "pgo-run show",
	.description = "The hottest functions of the profile in use, by entry count.\n",
	.options = show_options,
	.footer = exit_status,
};

static const struct cli_option clean_options[] = {
	OPTION_BUILD, OPTION_STORE,
	{ "--all", 0, CLI_FLAG, &o.all, 0, "remove the whole store, not one configuration" },
	{ 0 }
};

static const struct cli_command clean_command = {
	.name = "pgo-run clean",
	.description = "Removes this configuration's profiles from the store.\n",
	.options = clean_options,
	.footer = exit_status,
};

static const struct cli_option merge_options[] = {
	OPTION_BUILD, OPTION_STORE,
	{ "--weight", 0, CLI_CALL, 0, "W:DIR", "a profile folder whose counts weigh W (default 1)", .set = set_weighted,
	  .repeatable = true },
	{ 0 }
};

static const struct cli_command merge_command = {
	.name = "pgo-run merge",
	.operands = "[DIR]...",
	.description = "Adds instrumented runs made outside pgo-run, from the store's gen/ folder\n"
		       "or from DIRs, to the profile in use.\n",
	.options = merge_options,
	.footer = exit_status,
};

/* The operands of a command: workloads (the cycle) or profile folders (merge). */
static int parse(const struct cli_command *command, int argc, char **argv)
{
	char **operands;
	int count = cli_parse(command, argc, argv, &operands), k;

	for (k = 0; k < count; k++)
		add_workload(operands[k], 1);
	return count;
}

/* The weights given must go to gcov-tool as whole numbers in the same
   proportions; first is the weight of a folder merged with them (the
   profile in use for merge), 0 when none. */
static void check_weights(double first)
{
	double *weights = xcalloc(o.nworkloads + 1, sizeof(*weights));
	long *whole = xcalloc(o.nworkloads + 1, sizeof(*whole));
	size_t i, n = 0;
	char *why;

	if (first > 0)
		weights[n++] = first;
	for (i = 0; i < o.nworkloads; i++)
		weights[n++] = o.workloads[i].weight;
	if (n && merge_whole_weights(weights, n, whole, &why) < 0)
		cli_usage_error("--weight: %s", why);
	free(weights);
	free(whole);
}

static int run_cycle(int argc, char **argv)
{
	parse(&cycle_command, argc, argv);
	/* a --weight is a workload too */
	if (!o.nworkloads)
		cli_usage_error("no workload given");
	check_weights(0);
	if (o.bench && !o.output)
		cli_usage_error("--bench needs --bench-program FILE, the program it runs");
	return cycle_run(&o);
}

static int run_build(int argc, char **argv)
{
	if (parse(&build_command, argc, argv))
		cli_usage_error("build takes no workloads");
	o.no_train = true;
	if (o.bench && !o.output)
		cli_usage_error("--bench needs --bench-program FILE, the program it runs");
	return cycle_run(&o);
}

static int run_status(int argc, char **argv)
{
	if (parse(&status_command, argc, argv))
		cli_usage_error("status takes no workloads");
	o.json = format == 1;
	return commands_status(&o);
}

static int run_show(int argc, char **argv)
{
	if (parse(&show_command, argc, argv))
		cli_usage_error("show takes no workloads");
	o.json = format == 1;
	return commands_show(&o);
}

static int run_clean(int argc, char **argv)
{
	if (parse(&clean_command, argc, argv))
		cli_usage_error("clean takes no workloads");
	return commands_clean(&o);
}

static int run_merge(int argc, char **argv)
{
	parse(&merge_command, argc, argv);
	check_weights(1);
	return commands_merge(&o);
}

static const struct cli_subcommand commands[] = {
	{ "build", "the optimized build with the profile in use, no training", &build_command, run_build },
	{ "status", "the profile in use, its age, sources changed since", &status_command, run_status },
	{ "merge", "add instrumented runs made outside pgo-run to the profile", &merge_command, run_merge },
	{ "show", "the hottest functions of the profile", &show_command, run_show },
	{ "clean", "remove profiles from the store", &clean_command, run_clean },
	{ 0 }
};

static const struct cli_subcommand cycle = { "", "", &cycle_command, run_cycle };

static const struct cli_program program = {
	.name = "pgo-run",
	.description =
		"Without a command: builds the project instrumented, runs every WORKLOAD,\n"
		"merges and checks the profile, installs it in the store and rebuilds the\n"
		"project optimized with it.  See pgo-run(1).\n",
	.commands = commands,
	.fallback = &cycle,
	.footer = exit_status,
};

int main(int argc, char **argv)
{
	int status;

	progname = "pgo-run";
	status = cli_dispatch(&program, argc, argv);
	free(o.workloads);
	return status;
}
