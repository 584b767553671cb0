/* pgo-run: drives gcc's profile-guided optimization cycle (instrumented
   build, training runs, merge and checks, optimized build, benchmark) and
   keeps the profile store honest. */
#include "commands.h"
#include "cycle.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: pgo-run [options] WORKLOAD...\n"
	"       pgo-run build|status|show|clean [options]\n"
	"       pgo-run merge [--weight W:DIR]... [DIR...]\n"
	"\n"
	"Builds the project instrumented, runs every WORKLOAD (a shell command; its\n"
	"exit status is checked), merges and checks the profile, installs it in the\n"
	"store and rebuilds the project optimized with it.  A failed step stops the\n"
	"cycle and leaves the profile in use untouched.\n"
	"\n"
	"  --weight W:WORKLOAD  a workload whose counts weigh W (default 1)\n"
	"  --build CMD          build command (default: make PGO_CFLAGS=... PGO_LDFLAGS=...,\n"
	"                       for a Makefile that includes mk/pgo.mk); CMD gets the\n"
	"                       flags in CFLAGS and LDFLAGS (and PGO_CFLAGS, PGO_LDFLAGS)\n"
	"  --clean CMD          clean command run before each build (default: make clean)\n"
	"  --gen-dir DIR        run the instrumented build in DIR (default .)\n"
	"  --use-dir DIR        run the plain and optimized builds in DIR (default .)\n"
	"  --store DIR          the profile store (default .pgo)\n"
	"  --retrain-if-stale   reuse the profile unless a source changed since training\n"
	"  --bench CMD          also build plain, then run CMD with PGO_BIN set to the\n"
	"                       plain and to the PGO program, alternately\n"
	"  --output FILE        the program --bench runs, as the build writes it\n"
	"  --runs N             benchmark runs of each build (default 10)\n"
	"  --top N              show: how many functions (default 20)\n"
	"  --all                clean: remove the whole store, not one configuration\n"
	"  --help, --version\n"
	"\n"
	"Commands: build (the optimized build with the profile in use, no\n"
	"training), status (which profile, how old, sources changed since, objects\n"
	"without data), merge (add instrumented runs made outside pgo-run, from the\n"
	"store's gen/ folder or from DIRs, to the profile), show (hottest functions),\n"
	"clean.\n"
	"\n"
	"Exit status: 0 success, 1 a failed step or a finding (a stale profile,\n"
	"coverage-mismatch warnings), 2 wrong usage.\n";

static int positive(const char *value, const char *option)
{
	char *end;
	long n = strtol(value, &end, 10);

	if (*end || n < 1 || n > 100000)
		usage_error("%s: needs a positive number", option);
	return (int)n;
}

static bool is_command(const char *arg)
{
	static const char *const commands[] = { "build", "status", "merge", "clean", "show" };
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		if (!strcmp(arg, commands[i]))
			return true;
	return false;
}

/* Taken as a workload, a command put after an option would run a whole
   cycle; merge's operands are folders, which may have any name. */
static void refuse_misplaced_command(const char *arg, const char *command)
{
	char *message;

	if (!is_command(arg) || (command && !strcmp(command, "merge")))
		return;
	message = xasprintf("'%s' is a command: put it first (pgo-run %s [options])", arg, arg);
	usage_error("%s", message);
}

int main(int argc, char **argv)
{
	struct pgo_options o = {
		.store_path = ".pgo", .gen_dir = ".", .use_dir = ".", .runs = 10, .top = 20,
	};
	const char *command = NULL, *value;
	size_t cap = 0;
	bool options_done = false;
	int i, status;

	progname = "pgo-run";
	if (argc > 1 && is_command(argv[1])) {
		command = argv[1];
		argv++;
		argc--;
	}
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		struct workload *w;

		if (options_done || arg[0] != '-' || !arg[1]) {
			if (!options_done)
				refuse_misplaced_command(arg, command);
			w = ARRAY_PUSH(o.workloads, o.nworkloads, cap);
			w->command = arg;
			w->weight = 1;
		} else if (!strcmp(arg, "--")) {
			options_done = true;
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			fputs(usage_text, stdout);
			stdout_close_or_die();
			return EXIT_OK;
		} else if (!strcmp(arg, "--version")) {
			printf("pgo-run (linkopt) %s\n", LINKOPT_VERSION);
			stdout_close_or_die();
			return EXIT_OK;
		} else if ((value = option_value(argv, argc, &i, "--weight"))) {
			char *end;
			double weight = strtod(value, &end);

			if (end == value || *end != ':' || !end[1] || !(weight > 0))
				usage_error("--weight '%s': needs W:WORKLOAD with W a positive number", value);
			w = ARRAY_PUSH(o.workloads, o.nworkloads, cap);
			w->command = end + 1;
			w->weight = weight;
		} else if ((value = option_value(argv, argc, &i, "--build"))) {
			o.build = value;
		} else if ((value = option_value(argv, argc, &i, "--clean"))) {
			o.clean = value;
		} else if ((value = option_value(argv, argc, &i, "--gen-dir"))) {
			o.gen_dir = value;
		} else if ((value = option_value(argv, argc, &i, "--use-dir"))) {
			o.use_dir = value;
		} else if ((value = option_value(argv, argc, &i, "--store"))) {
			o.store_path = value;
		} else if ((value = option_value(argv, argc, &i, "--bench"))) {
			o.bench = value;
		} else if ((value = option_value(argv, argc, &i, "--output"))) {
			o.output = value;
		} else if ((value = option_value(argv, argc, &i, "--runs"))) {
			o.runs = positive(value, "--runs");
		} else if ((value = option_value(argv, argc, &i, "--top"))) {
			o.top = positive(value, "--top");
		} else if (!strcmp(arg, "--retrain-if-stale")) {
			o.retrain_if_stale = true;
		} else if (!strcmp(arg, "--all")) {
			o.all = true;
		} else {
			usage_error("unknown option '%s'", arg);
		}
	}
	if (!command) {
		if (!o.nworkloads)
			usage_error("%s", "no workload given");
		if (o.bench && !o.output)
			usage_error("%s", "--bench needs --output FILE, the program it runs");
		status = cycle_run(&o);
	} else if (strcmp(command, "merge") != 0 && o.nworkloads) {
		usage_error("'%s' takes no workloads", command);
	} else if (!strcmp(command, "build")) {
		o.no_train = true;
		if (o.bench && !o.output)
			usage_error("%s", "--bench needs --output FILE, the program it runs");
		status = cycle_run(&o);
	} else if (!strcmp(command, "status")) {
		status = commands_status(&o);
	} else if (!strcmp(command, "merge")) {
		status = commands_merge(&o);
	} else if (!strcmp(command, "clean")) {
		status = commands_clean(&o);
	} else {
		status = commands_show(&o);
	}
	free(o.workloads);
	return status;
}
