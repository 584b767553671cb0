/* deporder: the archive members (or input sections) a GNU ld link needs,
   computed as ld computes them, in dependency order. */
#include "link.h"
#include "../linkscripts/emit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: deporder [--seed SYM]... [--granularity=object|section]\n"
	"                [--format=list|members|json] [--why UNIT|SYM] [--keep-going]\n"
	"                [--trace FILE --map FILE [--trace-object GLOB] [--min-match P]]\n"
	"                [--emit=list|gnu-ld|gold|lld] [--out FILE] [-q] [--] INPUTS...\n"
	"       deporder [options] --cc -- CC LINK-ARGS...\n"
	"\n"
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
	"warning each.\n"
	"\n"
	"  --seed SYM           start from SYM (repeatable); default: the entry symbol\n"
	"                       (_start, or -e), -u symbols and the objects given\n"
	"  --granularity=G      object (default) or section (the sections ld keeps\n"
	"                       under --gc-sections, as UNIT<TAB>SECTION)\n"
	"  --format=F           list (default): one unit per line, path or\n"
	"                       archive(member); members: only archive members, in the\n"
	"                       order ld extracts them; json\n"
	"  --why UNIT|SYM       print the chain of references that pulled it in\n"
	"  --cc                 the arguments after -- are a compiler-driver link\n"
	"                       command; deporder asks it for its ld command (-###)\n"
	"  --keep-going         report every bad input and go on with the rest\n"
	"  --trace FILE         a pagein or cygtrace trace of the program linked with\n"
	"                       -Wl,-Map=MAP (repeatable): what it touched goes first,\n"
	"                       in first-touch order, what every trace touched before\n"
	"                       what some did\n"
	"  --weight W           the next --trace weighs W (default 1): sections of\n"
	"                       heavier traces go before those of lighter ones\n"
	"  --map MAP            the link map of the traced program\n"
	"  --trace-object GLOB  the traced object to order (default: the main program)\n"
	"  --page-size N        pack the hot code so that no section smaller than a\n"
	"                       page crosses a page boundary while a later hot section\n"
	"                       could fill the gap (default 4096; 0: no packing)\n"
	"  --no-data            do not move the data the traced code refers to\n"
	"  --evaluate           print, per trace, the code pages it touches now and\n"
	"                       would touch with the order, and the 64 KiB\n"
	"                       fault-around windows of each, without relinking\n"
	"  --min-match P        refuse a trace of which less than P%% matches the link\n"
	"                       (default 90): it is stale\n"
	"  --trace-order=O      coverage (default): what every trace touched first;\n"
	"                       first-touch: by first touch alone\n"
	"  --emit=FORM          list (default), gnu-ld (a complete linker script for\n"
	"                       -T), gold (--section-ordering-file), lld\n"
	"                       (--symbol-ordering-file, also for mold),\n"
	"                       lld-call-graph (--call-graph-ordering-file from the\n"
	"                       traces' consecutive first touches)\n"
	"  --out FILE           write to FILE (replaced only when complete)\n"
	"  -q, --quiet          no warnings about skipped ld options\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 a failure on input, 2 wrong usage.\n";

/* With whole units, how many leading units of order hold traced sections. */
static size_t count_hot_units(const struct link *link, const struct unit_section *order, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		bool hot = false;

		for (k = 0; k < link->hot_count && !hot; k++)
			hot = link->hot[k].unit == order[i].unit;
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
	enum output_format format = FORMAT_LIST;
	bool by_section = false, use_cc = false, quiet = false, evaluate = false;
	const char *why = NULL, *out = NULL, *v, *map = NULL, *trace_object = NULL;
	enum emit_format emit = EMIT_LIST;
	double min_match = 0.9;
	unsigned long page_size = 4096;
	char **traces = xcalloc(argc + 1, sizeof(char *)), **ld_argv = NULL, *ld_program = NULL;
	size_t trace_count = 0;
	double *weights = xcalloc(argc + 1, sizeof(double)), next_weight = 1;
	char **inputs = xcalloc(argc + 1, sizeof(char *)), **seeds = xcalloc(argc + 1, sizeof(char *));
	int input_count = 0, i, status;
	size_t seed_count = 0;

	progname = "deporder";
	link.order_data = true;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "--")) {
			for (i++; i < argc; i++)
				inputs[input_count++] = argv[i];
			break;
		}
		if (!strcmp(arg, "--help")) {
			fputs(usage_text, stdout);
			stdout_close_or_die();
			return EXIT_OK;
		} else if (!strcmp(arg, "--version")) {
			printf("deporder (linkopt) %s\n", LINKOPT_VERSION);
			stdout_close_or_die();
			return EXIT_OK;
		} else if ((v = option_value(argv, argc, &i, "--seed"))) {
			seeds[seed_count++] = (char *)v;
		} else if ((v = option_value(argv, argc, &i, "--granularity"))) {
			if (!strcmp(v, "object"))
				by_section = false;
			else if (!strcmp(v, "section"))
				by_section = true;
			else
				usage_error("--granularity: '%s' is not object or section", v);
		} else if ((v = option_value(argv, argc, &i, "--format"))) {
			if (!strcmp(v, "list"))
				format = FORMAT_LIST;
			else if (!strcmp(v, "members"))
				format = FORMAT_MEMBERS;
			else if (!strcmp(v, "json"))
				format = FORMAT_JSON;
			else
				usage_error("--format: '%s' is not list, members or json", v);
		} else if ((v = option_value(argv, argc, &i, "--why"))) {
			why = v;
		} else if ((v = option_value(argv, argc, &i, "--out"))) {
			out = v;
		} else if ((v = option_value(argv, argc, &i, "--trace-object"))) {
			trace_object = v;
		} else if ((v = option_value(argv, argc, &i, "--trace"))) {
			weights[trace_count] = next_weight;
			next_weight = 1;
			traces[trace_count++] = (char *)v;
		} else if ((v = option_value(argv, argc, &i, "--weight"))) {
			char *end;

			next_weight = strtod(v, &end);
			if (end == v || *end || next_weight <= 0)
				usage_error("--weight: '%s' is not a positive number", v);
		} else if ((v = option_value(argv, argc, &i, "--map"))) {
			map = v;
		} else if ((v = option_value(argv, argc, &i, "--page-size"))) {
			char *end;

			page_size = strtoul(v, &end, 10);
			if (end == v || *end || (page_size && (page_size < 256 || (page_size & (page_size - 1)))))
				usage_error("--page-size: '%s' is not 0 or a power of two of at least 256", v);
		} else if ((v = option_value(argv, argc, &i, "--min-match"))) {
			char *end;

			min_match = strtod(v, &end) / 100;
			if (end == v || *end || min_match < 0 || min_match > 1)
				usage_error("--min-match: '%s' is not a percentage", v);
		} else if ((v = option_value(argv, argc, &i, "--emit"))) {
			if (!strcmp(v, "list"))
				emit = EMIT_LIST;
			else if (!strcmp(v, "gnu-ld"))
				emit = EMIT_GNU_LD;
			else if (!strcmp(v, "gold"))
				emit = EMIT_GOLD;
			else if (!strcmp(v, "lld") || !strcmp(v, "mold"))
				emit = EMIT_LLD;
			else if (!strcmp(v, "lld-call-graph"))
				emit = EMIT_CALL_GRAPH;
			else
				usage_error("--emit: '%s' is not list, gnu-ld, gold, lld or lld-call-graph", v);
		} else if ((v = option_value(argv, argc, &i, "--trace-order"))) {
			if (!strcmp(v, "coverage"))
				link.first_touch_only = false;
			else if (!strcmp(v, "first-touch"))
				link.first_touch_only = true;
			else
				usage_error("--trace-order: '%s' is not coverage or first-touch", v);
		} else if (!strcmp(arg, "--cc")) {
			use_cc = true;
		} else if (!strcmp(arg, "--no-data")) {
			link.order_data = false;
		} else if (!strcmp(arg, "--evaluate")) {
			evaluate = true;
		} else if (!strcmp(arg, "--keep-going")) {
			link.keep_going = true;
		} else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
			quiet = true;
		} else if (arg[0] == '-' && arg[1] == '-' && !inputs_known_option(arg)) {
			usage_error("unrecognized option '%s'", arg);
		} else {
			inputs[input_count++] = (char *)arg;
		}
	}
	if (use_cc) {
		int n = 0;
		char **args;

		if (input_count == 0)
			usage_error("%s", "--cc needs a compiler command after --");
		args = ccdriver_link_args(inputs, &n);
		if (!args)
			return EXIT_INPUT;
		ld_program = ccdriver_linker(inputs[0]);
		inputs = args;
		input_count = n;
	}
	if (input_count == 0)
		usage_error("%s", "no input files");
	if (trace_count && !map)
		usage_error("%s", "--trace needs --map, the link map of the traced program (-Wl,-Map=FILE)");
	if (map && !trace_count)
		usage_error("%s", "--map is for --trace");
	if (evaluate && (!trace_count || !by_section))
		usage_error("%s", "--evaluate needs --trace and --granularity=section");
	if (!ld_program) {
		const char *ld = getenv("LD");

		ld_program = xstrdup(ld && *ld ? ld : "ld");
	}
	ld_argv = inputs;
	inputs_quiet = quiet;
	link.options = inputs_parse(inputs, input_count);
	if (!link.options)
		return EXIT_USAGE;
	link.seeds = seeds;
	link.seed_count = seed_count;
	link.status = inputs_open(link.options, link.keep_going);
	if (link.status && !link.keep_going)
		return EXIT_INPUT;
	closure_run(&link);
	if (trace_count) {
		link.trace_weights = weights;
		link.evaluate = evaluate;
		if (trace_hot(&link, traces, trace_count, map, trace_object, min_match))
			return EXIT_INPUT;
		trace_pack(&link, page_size);
		if (evaluate) {
			trace_evaluate(&link, page_size);
			stdout_close_or_die();
			return EXIT_OK;
		}
	}
	if (by_section || format == FORMAT_JSON || why) {
		if (by_section && closure_load_relocs(&link) && !link.keep_going)
			return EXIT_INPUT;
		if (by_section)
			sections_mark(&link);
		if (by_section && trace_count && link.order_data)
			trace_add_data(&link);
	}
	if (out && trace_count)
		warn_if_worse(out, link.match_rate);
	if (out && !stdout_to_temporary(out))
		fatal("%s: cannot create: %s", out, strerror(errno));
	if (why) {
		status = order_why(&link, why, by_section);
	} else if (emit != EMIT_LIST) {
		size_t n, k;
		struct unit_section *order = order_compute(&link, by_section, &n);
		char *provenance = trace_count
			? xasprintf("deporder (linkopt %s): %zu units, %zu of them from %zu trace%s, matched %.1f%%; link:",
				    LINKOPT_VERSION, n, link.hot_count, trace_count, trace_count == 1 ? "" : "s",
				    100 * link.match_rate)
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
		status = emit_order(&link, order, n, by_section ? link.hot_count : count_hot_units(&link, order, n), emit,
				    ld_argv, ld_program, provenance);
		free(order);
		free(provenance);
	} else {
		order_print(&link, format, by_section);
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
