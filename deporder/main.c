/* deporder: the archive members (or input sections) a GNU ld link needs,
   computed as ld computes them, in dependency order. */
#include "cli.h"
#include "evaluate.h"
#include "hot.h"
#include "linkmodel.h"
#include "pack.h"
#include "../linkscripts/emit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the command line asks for, filled from the option table. */
static struct {
	struct cli_list seeds;
	int granularity, format, emit, trace_order;
	const char *why, *out, *map, *trace_object;
	bool use_cc, keep_going, no_data, evaluate, quiet;
	char **traces;
	double *weights, next_weight;
	size_t trace_count;
	unsigned long page_size;
	double min_match;
} opt = { .next_weight = 1, .page_size = 4096, .min_match = 0.9 };

static const char *const granularities[] = { "object", "section", NULL };
static const char *const formats[] = { "list", "members", "json", NULL };
static const char *const emit_forms[] = { "list", "gnu-ld", "gold", "lld", "mold", "lld-call-graph", NULL };
static const enum emit_format emit_values[] = { EMIT_LIST, EMIT_GNU_LD, EMIT_GOLD, EMIT_LLD, EMIT_LLD, EMIT_CALL_GRAPH };
static const char *const trace_orders[] = { "coverage", "first-touch", NULL };

static const char *add_trace(void *target, const char *value)
{
	(void)target;
	opt.traces = xrealloc(opt.traces, (opt.trace_count + 1) * sizeof(char *));
	opt.weights = xrealloc(opt.weights, (opt.trace_count + 1) * sizeof(double));
	opt.traces[opt.trace_count] = (char *)value;
	opt.weights[opt.trace_count++] = opt.next_weight;
	opt.next_weight = 1;
	return NULL;
}

static const char *set_weight(void *target, const char *value)
{
	double w;

	(void)target;
	if (!cli_number(value, &w) || w <= 0)
		return "is not a positive number";
	opt.next_weight = w;
	return NULL;
}

static const char *set_page_size(void *target, const char *value)
{
	unsigned long n;

	(void)target;
	if (!cli_unsigned(value, &n) || (n && (n < 256 || n > (1ul << 30) || (n & (n - 1)))))
		return "is not 0 or a power of two from 256 to 1073741824";
	opt.page_size = n;
	return NULL;
}

static const char *set_min_match(void *target, const char *value)
{
	double p;

	(void)target;
	if (!cli_number(value, &p) || p < 0 || p > 100)
		return "is not a percentage";
	opt.min_match = p / 100;
	return NULL;
}

/* An ld option among the inputs: every single-dash one, and the long ones
   deporder's input reader knows. */
static bool ld_option(const char *arg)
{
	return arg[1] != '-' || inputs_known_option(arg);
}

static const struct cli_option options[] = {
	{ "--seed", 0, CLI_LIST, &opt.seeds, "SYM",
	  "start from SYM (repeatable); default: the entry symbol\n"
	  "(_start, or -e), -u symbols and the objects given" },
	{ "--granularity", 0, CLI_CHOICE, &opt.granularity, 0,
	  "object (default) or section (the sections ld keeps\n"
	  "under --gc-sections, as UNIT<TAB>SECTION)", granularities },
	{ "--format", 0, CLI_CHOICE, &opt.format, 0,
	  "list (default): one unit per line, path or\n"
	  "archive(member); members: only archive members, in the\n"
	  "order ld extracts them; json", formats },
	{ "--why", 0, CLI_STRING, &opt.why, "UNIT|SYM", "print the chain of references that pulled it in" },
	{ "--cc", 0, CLI_FLAG, &opt.use_cc, 0,
	  "the arguments after -- are a compiler-driver link\n"
	  "command; deporder asks it for its ld command (-###)" },
	{ "--keep-going", 0, CLI_FLAG, &opt.keep_going, 0, "report every bad input and go on with the rest" },
	{ "--trace", 0, CLI_CALL, 0, "FILE",
	  "a pagein or cygtrace trace of the program linked with\n"
	  "-Wl,-Map=MAP (repeatable): what it touched goes first,\n"
	  "in first-touch order, what every trace touched before\n"
	  "what some did", .set = add_trace, .repeatable = true },
	{ "--weight", 0, CLI_CALL, 0, "W",
	  "the next --trace weighs W (default 1): sections of\n"
	  "heavier traces go before those of lighter ones", .set = set_weight, .repeatable = true },
	{ "--map", 0, CLI_STRING, &opt.map, "MAP", "the link map of the traced program" },
	{ "--trace-object", 0, CLI_STRING, &opt.trace_object, "GLOB",
	  "the traced object to order (default: the main program)" },
	{ "--trace-order", 0, CLI_CHOICE, &opt.trace_order, 0,
	  "coverage (default): what every trace touched first;\n"
	  "first-touch: by first touch alone", trace_orders },
	{ "--page-size", 0, CLI_CALL, 0, "N",
	  "pack the hot code so that no section smaller than a\n"
	  "page crosses a page boundary while a later hot section\n"
	  "could fill the gap (default 4096; 0: no packing)", .set = set_page_size },
	{ "--no-data", 0, CLI_FLAG, &opt.no_data, 0, "do not move the data the traced code refers to" },
	{ "--evaluate", 0, CLI_FLAG, &opt.evaluate, 0,
	  "print, per trace, the code pages it touches now and\n"
	  "would touch with the order, and the 64 KiB\n"
	  "fault-around windows of each, without relinking" },
	{ "--min-match", 0, CLI_CALL, 0, "P",
	  "refuse a trace of which less than P% matches the link\n"
	  "(default 90): it is stale", .set = set_min_match },
	{ "--emit", 0, CLI_CHOICE, &opt.emit, 0,
	  "list (default), gnu-ld (a complete linker script for\n"
	  "-T), gold (--section-ordering-file), lld or mold\n"
	  "(--symbol-ordering-file), lld-call-graph\n"
	  "(--call-graph-ordering-file from the traces'\n"
	  "consecutive first touches)", emit_forms },
	{ "--out", 0, CLI_STRING, &opt.out, "FILE", "write to FILE (replaced only when complete)" },
	{ "--quiet", 'q', CLI_FLAG, &opt.quiet, 0, "no warnings about skipped ld options" },
	{ 0 }
};

static const struct cli_command command = {
	.name = "deporder",
	.operands = "[--] INPUTS...",
	.also = "[options] --cc -- CC LINK-ARGS...",
	.description =
		"Computes which object files and archive members (or, with\n"
		"--granularity=section, which input sections) a GNU ld link needs, exactly as\n"
		"GNU ld pulls them, and prints them in dependency order: depth first from the\n"
		"seeds, callers before callees, first reference first; then what the link\n"
		"needs but the seeds do not reach.\n"
		"\n"
		"INPUTS is a GNU ld argument list: objects, archives (regular and thin),\n"
		"shared libraries, linker scripts, -L DIR, -l NAME, -Bstatic, -Bdynamic,\n"
		"--start-group/--end-group, --whole-archive, --as-needed, --push-state,\n"
		"--pop-state, -u SYM, -e SYM, -shared.  Other ld options are skipped with one\n"
		"warning each.  -h is ld's -soname among INPUTS; alone, it is --help.\n",
	.options = options,
	.footer = "Exit status: 0 success, 1 a failure on input, 2 wrong usage.\n",
	.pass_option = ld_option,
};

/* With whole units, how many leading units of order hold traced sections. */
static size_t count_hot_units(const struct hot_order *traced, const struct unit_section *order, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		bool hot = false;

		for (k = 0; k < traced->count && !hot; k++)
			hot = traced->sections[k].unit == order[i].unit;
		if (!hot)
			return i;
	}
	return n;
}

/* An order file about to be replaced by one that matches its traces less
   well: say so (the first line of an emitted file records its match). */
static void warn_if_worse(const char *path, double rate)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	const char *m;
	double old;

	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (m = strstr(line, ", matched ")) && sscanf(m, ", matched %lf%%", &old) == 1 &&
	    old > 100 * rate + 0.05)
		warn("%s: replacing an order that matched %.1f%% of its traces with one that matches %.1f%%", path, old,
		     100 * rate);
	fclose(f);
}

int main(int argc, char **argv)
{
	struct link link = { 0 };
	struct hot_order hot = { 0 };
	enum output_format format;
	enum emit_format emit;
	bool by_section, use_cc, quiet, evaluate;
	const char *why, *out, *map, *trace_object;
	double min_match;
	unsigned long page_size;
	char **traces, **ld_argv = NULL, *ld_program = NULL, **inputs;
	size_t trace_count;
	double *weights;
	int input_count, status;

	progname = "deporder";
	input_count = cli_parse(&command, argc, argv, &inputs);
	format = (enum output_format[]){ FORMAT_LIST, FORMAT_MEMBERS, FORMAT_JSON }[opt.format];
	emit = emit_values[opt.emit];
	by_section = opt.granularity == 1;
	use_cc = opt.use_cc;
	quiet = opt.quiet;
	evaluate = opt.evaluate;
	why = opt.why;
	out = opt.out;
	map = opt.map;
	trace_object = opt.trace_object;
	min_match = opt.min_match;
	page_size = opt.page_size;
	traces = opt.traces;
	trace_count = opt.trace_count;
	weights = opt.weights;
	link.keep_going = opt.keep_going;
	hot.order_data = !opt.no_data;
	hot.first_touch_only = opt.trace_order == 1;
	if (use_cc) {
		int n = 0;
		char **args;

		if (input_count == 0)
			cli_usage_error("--cc needs a compiler command after --");
		args = ccdriver_link_args(inputs, &n);
		if (!args)
			return EXIT_INPUT;
		ld_program = ccdriver_linker(inputs[0]);
		inputs = args;
		input_count = n;
	}
	if (input_count == 0)
		cli_usage_error("no input files");
	if (trace_count && !map)
		cli_usage_error("--trace needs --map, the link map of the traced program (-Wl,-Map=FILE)");
	if (map && !trace_count)
		cli_usage_error("--map is for --trace");
	if (evaluate && (!trace_count || !by_section))
		cli_usage_error("--evaluate needs --trace and --granularity=section");
	if (!ld_program) {
		const char *ld = getenv("LD");

		ld_program = xstrdup(ld && *ld ? ld : "ld");
	}
	ld_argv = inputs;
	inputs_quiet = quiet;
	link.options = inputs_parse(inputs, input_count);
	if (!link.options)
		return EXIT_USAGE;
	link.seeds = (char **)opt.seeds.items;
	link.seed_count = opt.seeds.count;
	link.status = inputs_open(link.options, link.keep_going);
	if (link.status && !link.keep_going)
		return EXIT_INPUT;
	closure_run(&link);
	if (trace_count) {
		hot.trace_weights = weights;
		if (hot_from_traces(&hot, &link, traces, trace_count, map, trace_object, min_match))
			return EXIT_INPUT;
		pack_hot(&hot, page_size);
		if (evaluate) {
			status = evaluate_traces(&hot, &link, traces, trace_count, map, trace_object, page_size);
			stdout_close_or_die();
			return status;
		}
	}
	if (by_section || format == FORMAT_JSON || why) {
		if (by_section && closure_load_relocs(&link) && !link.keep_going)
			return EXIT_INPUT;
		if (by_section)
			sections_mark(&link);
		if (by_section && trace_count && hot.order_data)
			hot_add_data(&hot, &link);
	}
	if (out && trace_count)
		warn_if_worse(out, hot.match_rate);
	if (out && !stdout_to_temporary(out))
		fatal("%s: cannot create: %s", out, strerror(errno));
	if (why) {
		status = order_why(&link, why, by_section);
	} else if (emit != EMIT_LIST) {
		size_t n, k;
		struct unit_section *order = order_compute(&link, hot.sections, hot.count, by_section, &n);
		struct ordering *record;
		char *provenance = trace_count
			? xasprintf("deporder (linkopt %s): %zu units, %zu of them from %zu trace%s, matched %.1f%%; link:",
				    LINKOPT_VERSION, n, hot.count, trace_count, trace_count == 1 ? "" : "s",
				    100 * hot.match_rate)
			: xasprintf("deporder (linkopt %s): %zu units in dependency order; link:", LINKOPT_VERSION, n);

		for (k = 0; k < trace_count; k++) {
			char *more = xasprintf("%s%s %s", provenance, k ? "," : " traces", traces[k]);

			free(provenance);
			provenance = more;
		}
		for (k = 0; k < (size_t)input_count && k < 64; k++) {
			char *more = xasprintf("%s %s", provenance, strstr(inputs[k], "*/") ? "..." : inputs[k]);

			free(provenance);
			provenance = more;
		}
		record = order_record(order, n, by_section ? hot.count : count_hot_units(&hot, order, n), provenance);
		hot_add_edges(&hot, record);
		status = emit_order(record, emit, ld_argv, ld_program);
		ordering_free(record);
		free(order);
		free(provenance);
	} else {
		order_print(&link, hot.sections, hot.count, format, by_section);
		status = 0;
	}
	stdout_close_or_die();
	/* A failed run must not replace the user's file with a partial one. */
	if (out && status) {
		stdout_discard();
		return status;
	}
	if (out && stdout_commit(out) < 0)
		fatal("%s: cannot write: %s", out, strerror(errno));
	return link.status ? link.status : status;
}
