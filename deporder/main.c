/* deporder: the archive members (or input sections) a GNU ld link needs,
   computed as ld computes them, in dependency order. */
#include "cli.h"
#include "evaluate.h"
#include "hot.h"
#include "linkmodel.h"
#include "pack.h"
#include "placement.h"
#include "emit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The choices of the options, in the order of their words below. */
enum granularity { GRANULARITY_OBJECT, GRANULARITY_SECTION };
enum trace_order { TRACE_ORDER_COVERAGE, TRACE_ORDER_FIRST_TOUCH };
enum placement { PLACEMENT_HEAD, PLACEMENT_COLD_START, PLACEMENT_DATA_FIRST };

/* What the command line asks for, filled from the option table. */
static struct {
	struct cli_list seeds;
	int granularity, format, emit, trace_order, placement; /* the enums' values */
	const char *why, *out, *map, *binary, *trace_object, *stats_json;
	bool use_cc, keep_going, no_data, evaluate, quiet;
	char **traces;
	double *weights, next_weight;
	size_t trace_count;
	unsigned long page_size, read_ahead_kb, placement_read_ahead_kb, untraced_segment_kb;
	bool read_ahead_given, placement_read_ahead_given;
	double min_match;
} opt = { .next_weight = 1, .page_size = 4096, .read_ahead_kb = 128, .min_match = 0.9 };

static const char *const granularities[] = { [GRANULARITY_OBJECT] = "object", [GRANULARITY_SECTION] = "section",
					     NULL };
static const char *const formats[] = { "list", "members", "json", NULL };
static const char *const emit_forms[] = { "list", "gnu-ld", "gold", "lld", "mold", "lld-call-graph", NULL };
static const enum emit_format emit_values[] = { EMIT_LIST, EMIT_GNU_LD, EMIT_GOLD, EMIT_LLD, EMIT_LLD, EMIT_CALL_GRAPH };
static const char *const trace_orders[] = { [TRACE_ORDER_COVERAGE] = "coverage",
					    [TRACE_ORDER_FIRST_TOUCH] = "first-touch", NULL };
static const char *const placements[] = { [PLACEMENT_HEAD] = "head", [PLACEMENT_COLD_START] = "cold-start",
					  [PLACEMENT_DATA_FIRST] = "data-first", NULL };

/* One run of deporder, from the link to what it prints: the closure, the
   hot order and the traces it came from, the order laid out (NULL: the
   hot order's own) and where its traced part goes, and the ld command. */
struct deporder_run {
	struct link link;
	struct hot_order hot;
	struct hot_inputs traced;
	struct unit_section *order;
	size_t order_count;
	struct layout_placement placement;
	char *placement_note;
	char **args;
	int count;
	char *ld_program;
};

/* --stats-json: how each trace matched, and --evaluate's rows, written
   whole or not at all (temporary file, renamed). */
static void write_stats_json(const char *path, const struct hot_order *hot, const struct evaluate_rows *rows)
{
	char *text = NULL;
	size_t size = 0, i;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		fatal("%s: open_memstream failed: %s", path, strerror(errno));
	fprintf(f, "{");
	json_fprint_format(f, "linkopt-deporder-stats", 1);
	fprintf(f, "\"traces\": [");
	for (i = 0; i < hot->stats_count; i++) {
		const struct hot_match_stats *s = &hot->stats[i];

		fprintf(f, "%s\n  {\"trace\": ", i ? "," : "");
		json_fprint_string(f, s->trace);
		fprintf(f, ", \"object\": ");
		json_fprint_string(f, s->object);
		fprintf(f, ", \"records\": %zu, \"matched\": %zu, \"common\": %zu, \"linker_made\": %zu, "
			"\"stale\": %zu, \"wrong_symbol\": %zu, \"outside\": %zu, \"match_rate\": %.4f}",
			s->records, s->matched, s->common, s->linker, s->stale, s->renamed, s->outside, s->rate);
	}
	fprintf(f, "\n]");
	if (rows) {
		fprintf(f, ", \"read_ahead_kb\": %lu, \"evaluate\": [", opt.read_ahead_kb);
		for (i = 0; i < rows->count; i++) {
			const struct evaluate_row *r = &rows->rows[i];

			fprintf(f, "%s\n  {\"trace\": ", i ? "," : "");
			json_fprint_string(f, r->trace);
			fprintf(f, ", \"code_pages_now\": %zu, \"code_pages_ordered\": %zu, \"windows_64k_now\": %zu, "
				"\"windows_64k_ordered\": %zu", r->pages_now, r->pages_ordered, r->windows_now,
				r->windows_ordered);
			if (r->cold)
				fprintf(f, ", \"cold_pages_read_now\": %llu, \"cold_pages_read_ordered\": %llu, "
					"\"cold_requests_now\": %llu, \"cold_requests_ordered\": %llu",
					(unsigned long long)r->read_now, (unsigned long long)r->read_ordered,
					(unsigned long long)r->requests_now, (unsigned long long)r->requests_ordered);
			fprintf(f, "}");
		}
		fprintf(f, "\n]");
	}
	fprintf(f, "}\n");
	if (fclose(f) != 0)
		fatal("%s: write failed: %s", path, strerror(errno));
	if (write_file_atomic(path, text, size) < 0)
		fatal("%s: cannot write: %s", path, strerror(errno));
	free(text);
}

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

static const char *set_untraced_segment(void *target, const char *value)
{
	(void)target;
	return cli_untraced_segment_kb(value, &opt.untraced_segment_kb);
}

static const char *set_read_ahead(void *target, const char *value)
{
	const char *wrong = cli_read_ahead_kb(value, &opt.read_ahead_kb);

	(void)target;
	opt.read_ahead_given = !wrong;
	return wrong;
}

static const char *set_placement_read_ahead(void *target, const char *value)
{
	const char *wrong = cli_read_ahead_kb(value, &opt.placement_read_ahead_kb);

	(void)target;
	opt.placement_read_ahead_given = !wrong;
	return wrong;
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
	{ "--binary", 0, CLI_STRING, &opt.binary, "FILE",
	  "the binary MAP describes and the traces are of (default:\n"
	  "the map's output, here or beside the map): the map's\n"
	  "symbols must sit where it put them, and each trace must\n"
	  "hold an object with its build-id" },
	{ "--trace-object", 0, CLI_STRING, &opt.trace_object, "GLOB",
	  "of the traced objects with the binary's build-id, the\n"
	  "one whose path matches GLOB" },
	{ "--trace-order", 0, CLI_CHOICE, &opt.trace_order, 0,
	  "coverage (default): what every trace touched first;\n"
	  "first-touch: by first touch alone", trace_orders },
	{ "--page-size", 0, CLI_CALL, 0, "N",
	  "pack the hot code so that no section smaller than a\n"
	  "page crosses a page boundary while a later hot section\n"
	  "could fill the gap (default 4096; 0: no packing)", .set = set_page_size },
	{ "--no-data", 0, CLI_FLAG, &opt.no_data, 0, "do not move the data the traced code refers to" },
	{ "--untraced-segment-kb", 0, CLI_CALL, 0, "N",
	  "gnu-ld: the untraced code in segments of at most N KiB\n"
	  "each: a run that touches code no trace ran reads ahead\n"
	  "to its segment's end at most", .set = set_untraced_segment },
	{ "--evaluate", 0, CLI_FLAG, &opt.evaluate, 0,
	  "print, per trace, the code pages it touches now and\n"
	  "would touch with the order, the 64 KiB fault-around\n"
	  "windows of each, and the file pages and read requests\n"
	  "of a cold start now and with the order, without\n"
	  "relinking" },
	{ "--read-ahead-kb", 0, CLI_CALL, 0, "N",
	  "the read-ahead of the disk for --evaluate's cold start\n"
	  "and --placement=cold-start, as\n"
	  "/sys/block/DEV/queue/read_ahead_kb (default 128)", .set = set_read_ahead },
	{ "--placement", 0, CLI_CHOICE, &opt.placement, 0,
	  "head (default): the traced sections at the head of\n"
	  "their output sections; cold-start: where the cold-start\n"
	  "model of --evaluate predicts the fewest file pages read\n"
	  "(gnu-ld: part of the traced code at the end of .text,\n"
	  "the traced .rodata last; lld, mold: the traced code\n"
	  "last; gold: as head); data-first (gnu-ld): what start-up\n"
	  "reads before its code, in that order: relocations, the\n"
	  "data segment, the traced .rodata (and the strings its\n"
	  "traced data points to), then the code, the untraced\n"
	  ".rodata and the unwinding tables after it: the link for\n"
	  "linkopt-bolt, which puts the hot code at the head of\n"
	  ".text (not modelled by --evaluate)", placements },
	{ "--placement-read-ahead-kb", 0, CLI_CALL, 0, "N",
	  "the read-ahead --placement=cold-start places for\n"
	  "(default: --read-ahead-kb), so that --evaluate shows\n"
	  "what that placement reads at another", .set = set_placement_read_ahead },
	{ "--min-match", 0, CLI_CALL, 0, "P",
	  "refuse a trace of which less than P% matches the link\n"
	  "(default 90): it is stale", .set = set_min_match },
	{ "--emit", 0, CLI_CHOICE, &opt.emit, 0,
	  "list (default), gnu-ld (a complete linker script for\n"
	  "-T), gold (--section-ordering-file), lld or mold\n"
	  "(--symbol-ordering-file), lld-call-graph\n"
	  "(--call-graph-ordering-file from the traces'\n"
	  "consecutive first touches)", emit_forms },
	/* Not -o/--output: among INPUTS those are ld's, the link's output. */
	{ "--out", 0, CLI_STRING, &opt.out, "FILE", "write to FILE (replaced only when complete)" },
	{ "--stats-json", 0, CLI_STRING, &opt.stats_json, "FILE",
	  "write how each trace matched the link and, with --evaluate,\n"
	  "its rows, as JSON (format linkopt-deporder-stats) to FILE" },
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

/* The linker's arguments: the operands, or with --cc the command the
   compiler driver would run; *ld_program is the linker to ask for its
   default script.  A usage error exits. */
static char **link_arguments(char **operands, int *count, char **ld_program)
{
	char **args = operands;
	const char *ld = getenv("LD");

	*ld_program = NULL;
	if (opt.use_cc) {
		if (*count == 0)
			cli_usage_error("--cc needs a compiler command after --");
		args = ccdriver_link_args(operands, count);
		if (!args)
			exit(EXIT_INPUT);
		*ld_program = ccdriver_linker(operands[0]);
	}
	if (*count == 0)
		cli_usage_error("no input files");
	if (opt.trace_count && !opt.map)
		cli_usage_error("--trace needs --map, the link map of the traced program (-Wl,-Map=FILE)");
	if (opt.map && !opt.trace_count)
		cli_usage_error("--map is for --trace");
	if (opt.binary && !opt.trace_count)
		cli_usage_error("--binary is for --trace");
	if (opt.evaluate && (!opt.trace_count || opt.granularity != GRANULARITY_SECTION))
		cli_usage_error("--evaluate needs --trace and --granularity=section");
	if (opt.read_ahead_given && !opt.evaluate && opt.placement != PLACEMENT_COLD_START)
		cli_usage_error("--read-ahead-kb is for --evaluate and --placement=cold-start");
	if (opt.placement_read_ahead_given && opt.placement != PLACEMENT_COLD_START)
		cli_usage_error("--placement-read-ahead-kb is for --placement=cold-start");
	if (!opt.placement_read_ahead_given)
		opt.placement_read_ahead_kb = opt.read_ahead_kb;
	if (opt.placement == PLACEMENT_COLD_START && (!opt.trace_count || opt.granularity != GRANULARITY_SECTION))
		cli_usage_error("--placement=cold-start needs --trace and --granularity=section");
	if (opt.placement == PLACEMENT_COLD_START && !opt.evaluate && (emit_values[opt.emit] == EMIT_LIST || emit_values[opt.emit] == EMIT_CALL_GRAPH))
		cli_usage_error("--placement=cold-start is for --emit=gnu-ld, gold, lld or mold, and --evaluate");
	if (opt.placement == PLACEMENT_DATA_FIRST && (!opt.trace_count || opt.granularity != GRANULARITY_SECTION))
		cli_usage_error("--placement=data-first needs --trace and --granularity=section");
	if (opt.placement == PLACEMENT_DATA_FIRST && opt.evaluate)
		cli_usage_error("--evaluate does not model --placement=data-first: relink, trace the program with pagein "
				"and run pagein-report --read-ahead-kb=N on the trace");
	if (opt.placement == PLACEMENT_DATA_FIRST && emit_values[opt.emit] != EMIT_GNU_LD)
		cli_usage_error("--placement=data-first is for --emit=gnu-ld (gold, lld and mold cannot put the data "
				"before the code)");
	if (opt.placement == PLACEMENT_DATA_FIRST && opt.no_data)
		cli_usage_error("--placement=data-first places the data: it cannot go with --no-data");
	if (opt.untraced_segment_kb && (emit_values[opt.emit] != EMIT_GNU_LD || opt.granularity != GRANULARITY_SECTION ||
					!opt.trace_count || opt.evaluate))
		cli_usage_error("--untraced-segment-kb is for --emit=gnu-ld with --trace and --granularity=section");
	if (!*ld_program)
		*ld_program = xstrdup(ld && *ld ? ld : "ld");
	return args;
}

/* Reads the link's inputs and computes its closure; exits on failure
   unless --keep-going. */
static void link_closure(struct link *link, char **args, int count, const char *ld_program)
{
	inputs_quiet = opt.quiet;
	inputs_linker = ld_program;
	link->keep_going = opt.keep_going;
	link->options = inputs_parse(args, count);
	if (!link->options)
		exit(EXIT_USAGE);
	link->seeds = (char **)opt.seeds.items;
	link->seed_count = opt.seeds.count;
	link->status = inputs_open(link->options, link->keep_going);
	if (link->status && !link->keep_going)
		exit(EXIT_INPUT);
	closure_run(link);
}

static void append(char **text, const char *more)
{
	char *joined = xasprintf("%s%s", *text, more);

	free(*text);
	*text = joined;
}

/* What the link's first comment line records: the tool, the traces and
   their match, and the link command. */
static char *provenance(const struct hot_order *hot, size_t units, char **args, int count)
{
	char *text = opt.trace_count
		? xasprintf("deporder (linkopt %s): %zu units, %zu of them from %zu trace%s, matched %.1f%%; traces",
			    LINKOPT_VERSION, units, hot->count, opt.trace_count, opt.trace_count == 1 ? "" : "s",
			    100 * hot->match_rate)
		: xasprintf("deporder (linkopt %s): %zu units in dependency order", LINKOPT_VERSION, units);
	size_t k;

	/* One line, whatever the names hold: each quoted as a trace quotes it. */
	for (k = 0; k < opt.trace_count; k++) {
		char *name = trace_quote(opt.traces[k]);
		char *more = xasprintf("%s%s %s", text, k ? "," : "", strstr(name, "*/") ? "..." : name);

		free(name);
		free(text);
		text = more;
	}
	append(&text, "; link:");
	for (k = 0; k < (size_t)count && k < 64; k++) {
		char *arg;

		/* the driver's temporary files say nothing of the link */
		if (strstr(args[k], "-fresolution="))
			continue;
		arg = trace_quote(args[k]);
		append(&text, " ");
		append(&text, strstr(arg, "*/") ? "..." : arg);
		free(arg);
	}
	return text;
}

/* Completes --out: the file is replaced only when the run succeeded
   (status 0); a failed run leaves the user's file alone. */
static void out_complete(int status)
{
	if (status)
		stdout_discard();
	else if (stdout_commit() < 0)
		fatal("%s: cannot write: %s", opt.out, strerror(errno));
}

/* Prints the run's order (NULL: the order of its hot sections) in the form
   --emit names, the traced code placed as the run's placement says (the
   head, without an order); returns the exit status. */
static int emit(struct deporder_run *run)
{
	bool by_section = opt.granularity == GRANULARITY_SECTION, own = !run->order;
	struct unit_section *order = run->order;
	size_t n = run->order_count;
	char *text;
	struct ordering *record;
	int status;

	if (own)
		order = order_compute(&run->link, run->hot.sections, run->hot.count, by_section, false, &n);
	text = provenance(&run->hot, n, run->args, run->count);
	if (run->placement_note)
		append(&text, run->placement_note);
	record = order_record(&run->link, order, n, by_section ? run->hot.count : count_hot_units(&run->hot, order, n),
			      text);
	if (!own) {
		record->head_end = run->placement.head_end;
		record->rodata = run->placement.rodata;
	}
	record->untraced_segment = (uint64_t)opt.untraced_segment_kb * 1024;
	hot_add_edges(&run->hot, record);
	status = emit_order(record, emit_values[opt.emit], run->args, run->ld_program);
	ordering_free(record);
	if (own)
		free(order);
	free(text);
	return status;
}

/* What the run's orders are judged against (evaluate.h). */
static struct evaluate_context judged_by(struct deporder_run *run, unsigned long read_ahead_kb)
{
	return (struct evaluate_context){ &run->hot, &run->link, &run->traced, opt.page_size, read_ahead_kb };
}

/* --placement=cold-start: the run's order placed for a cold start with the
   form --emit names (evaluate: as the GNU ld script), and a line for the
   order's provenance.  Returns the exit status. */
static int place_for_cold_start(struct deporder_run *run)
{
	static const char *const rodata_words[] = {
		"first", "last, after the unwinding tables",
		"alone before the data segment, the untraced .rodata and the unwinding tables after it",
	};
	enum emit_format form = opt.evaluate ? EMIT_GNU_LD : emit_values[opt.emit];
	struct evaluate_context ctx = judged_by(run, opt.placement_read_ahead_kb);
	struct laid_order laid = { run->order, run->order_count, run->hot.count, NULL };
	struct placement_choice choice;

	run->placement_note = NULL;
	if (form == EMIT_LLD) {
		/* lld and mold put .rodata before the code, after the headers */
		run->placement = (struct layout_placement){ 0, ORDERING_RODATA_FIRST };
		run->placement_note = xstrdup("; placement cold-start: the traced code at the end of .text");
		return 0;
	}
	if (form == EMIT_GOLD) {
		/* gold puts headers, code and read-only data in one segment the kernel reads forward */
		run->placement = (struct layout_placement){ run->hot.count, ORDERING_RODATA_FIRST };
		run->placement_note = xstrdup("; placement cold-start: as head, for gold");
		return 0;
	}
	if (placement_choose(&ctx, &laid, emit_can_place_rodata(run->args, run->ld_program, ORDERING_RODATA_APART),
			     &choice))
		return EXIT_INPUT;
	run->placement = choice.placement;
	fprintf(stderr, "deporder: placement for a cold start at %lu KiB of read-ahead: %llu bytes of the traced code at "
		"the head of .text, %llu at its end, the traced .rodata %s: %llu file pages read in %llu requests "
		"predicted, against %llu in %llu with the head placement (%zu placements compared)\n",
		opt.placement_read_ahead_kb,
		(unsigned long long)choice.head_bytes, (unsigned long long)choice.tail_bytes,
		rodata_words[choice.placement.rodata],
		(unsigned long long)choice.pages, (unsigned long long)choice.requests,
		(unsigned long long)choice.head_pages, (unsigned long long)choice.head_requests, choice.candidates);
	run->placement_note = xasprintf("; placement cold-start at %lu KiB: %llu bytes of the traced code at the head of "
					".text, %llu at its end, the traced .rodata %s", opt.placement_read_ahead_kb,
					(unsigned long long)choice.head_bytes, (unsigned long long)choice.tail_bytes,
					rodata_words[choice.placement.rodata]);
	return 0;
}

/* --placement=data-first: the data segment and the traced .rodata before
   the code, when the linker's default script has the shape for it.
   Returns the exit status. */
static int place_data_first(struct deporder_run *run)
{
	if (!emit_can_place_rodata(run->args, run->ld_program, ORDERING_RODATA_BEFORE_CODE)) {
		error("%s --verbose: the default script has not the shape --placement=data-first rearranges (a "
		      "page-aligned .init, a .rodata statement and its rodata-segment point after the code, a data "
		      "segment after them)", run->ld_program);
		return EXIT_INPUT;
	}
	run->placement.rodata = ORDERING_RODATA_BEFORE_CODE;
	run->placement_note = xstrdup("; placement data-first: the data segment, then the traced .rodata, before the "
				      "code; the untraced .rodata and the unwinding tables after it");
	return 0;
}

int main(int argc, char **argv)
{
	static const enum output_format formats_by_index[] = { FORMAT_LIST, FORMAT_MEMBERS, FORMAT_JSON };
	struct deporder_run run = { 0 };
	bool by_section;
	int status;

	progname = "deporder";
	run.count = cli_parse(&command, argc, argv, &run.args);
	run.args = link_arguments(run.args, &run.count, &run.ld_program);
	for (size_t k = 0; k < opt.trace_count; k++)
		output_input(opt.traces[k]);
	if (opt.map)
		output_input(opt.map);
	if (opt.binary)
		output_input(opt.binary);
	by_section = opt.granularity == GRANULARITY_SECTION;
	link_closure(&run.link, run.args, run.count, run.ld_program);
	run.hot.order_data = !opt.no_data;
	run.hot.first_touch_only = opt.trace_order == TRACE_ORDER_FIRST_TOUCH;
	run.hot.trace_weights = opt.weights;
	if (opt.trace_count) {
		if (hot_inputs_read(&run.traced, &run.link, opt.traces, opt.trace_count, opt.map, opt.binary,
				    opt.trace_object) ||
		    hot_from_traces(&run.hot, &run.link, &run.traced, opt.min_match))
			return EXIT_INPUT;
		if (by_section)
			hot_warn_whole_objects(&run.hot);
		pack_hot(&run.hot, opt.page_size);
	}
	if (by_section) {
		if (closure_load_relocs(&run.link) && !run.link.keep_going)
			return EXIT_INPUT;
		sections_mark(&run.link);
		if (opt.trace_count && run.hot.order_data)
			hot_add_data(&run.hot, &run.link, opt.placement == PLACEMENT_DATA_FIRST);
	}
	if (opt.evaluate || opt.placement != PLACEMENT_HEAD) {
		/* the order the emitters print, the data the traced code uses
		   included; every section named, but for gold, which puts those
		   its file does not name first */
		run.order = order_compute(&run.link, run.hot.sections, run.hot.count, true,
					  opt.placement == PLACEMENT_DATA_FIRST ||
						  (opt.placement == PLACEMENT_COLD_START &&
						   (opt.evaluate || emit_values[opt.emit] != EMIT_GOLD)),
					  &run.order_count);
		run.placement = (struct layout_placement){ run.hot.count, ORDERING_RODATA_FIRST };
		if (opt.placement == PLACEMENT_COLD_START && place_for_cold_start(&run))
			return EXIT_INPUT;
		if (opt.placement == PLACEMENT_DATA_FIRST && place_data_first(&run))
			return EXIT_INPUT;
	}
	if (opt.evaluate) {
		struct evaluate_rows rows = { 0 };
		struct evaluate_context ctx = judged_by(&run, opt.read_ahead_kb);
		struct laid_order laid = { run.order, run.order_count, run.hot.count, &run.placement };

		evaluate_record_rows(&rows);
		evaluate_traces(&ctx, &laid);
		free(run.order);
		free(run.placement_note);
		stdout_close_or_die();
		if (opt.stats_json)
			write_stats_json(opt.stats_json, &run.hot, &rows);
		return EXIT_OK;
	}
	if (opt.stats_json)
		write_stats_json(opt.stats_json, &run.hot, NULL);
	if (opt.out && opt.trace_count)
		warn_if_worse(opt.out, run.hot.match_rate);
	if (opt.out && !stdout_to_temporary(opt.out))
		fatal("%s: cannot create: %s", opt.out, strerror(errno));
	if (opt.why) {
		status = order_why(&run.link, opt.why, by_section);
	} else if (emit_values[opt.emit] != EMIT_LIST) {
		status = emit(&run);
	} else {
		order_print(&run.link, run.hot.sections, run.hot.count, formats_by_index[opt.format], by_section);
		status = 0;
	}
	stdout_close_or_die();
	free(run.order);
	free(run.placement_note);
	hot_inputs_free(&run.traced);
	if (opt.out) {
		/* --keep-going's result lacks the inputs that failed */
		if (!status && run.link.status)
			error("%s: not replaced: an input failed, and the order would be incomplete", opt.out);
		out_complete(status || run.link.status);
		if (status)
			return status;
	}
	return run.link.status ? run.link.status : status;
}
