#include "emit.h"
#include "util.h"
#include "linker.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *emit_output_section(const char *name)
{
	static const struct { const char *prefix, *output; } rules[] = {
		{ ".text", ".text" }, { ".rodata", ".rodata" }, { ".data.rel.ro", ".data.rel.ro" },
		{ ".data", ".data" }, { ".bss", ".bss" }, { NULL, NULL },
	};
	int i;

	for (i = 0; rules[i].prefix; i++) {
		size_t n = strlen(rules[i].prefix);

		if (!strncmp(name, rules[i].prefix, n) && (name[n] == '\0' || name[n] == '.'))
			return rules[i].output;
	}
	return NULL;
}

/* The default script of the linker, for the options of this link (a new
   string); NULL, after saying why when the linker failed, without one. */
static char *default_script(char **ld_argv, const char *ld_program)
{
	char *why;
	const struct linker *linker = linker_get(ld_program, ld_argv, &why);

	if (!linker) {
		error("%s", why);
		free(why);
		return NULL;
	}
	return linker->script ? xstrdup(linker->script) : NULL;
}

/* Where the output section statement "NAME :" of the script starts its
   input list: the address just past its '{'; NULL if the script has none. */
static char *output_section_body(char *script, const char *name)
{
	size_t n = strlen(name);
	char *line = script;

	while (line && *line) {
		char *q = line;

		while (*q == ' ' || *q == '\t')
			q++;
		if (!strncmp(q, name, n) && (q[n] == ' ' || q[n] == ':' || q[n] == '\t')) {
			char *colon = q + n;

			while (*colon == ' ' || *colon == '\t')
				colon++;
			/* an address before the colon: ".lrodata ALIGN(...) + (...) :" */
			if (*colon != ':' && *colon != '\n' && *colon != '=')
				colon += strcspn(colon, ":;=\n");
			if (*colon == ':') {
				char *brace = strchr(colon, '{');

				return brace ? brace + 1 : NULL;
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

/* The end of the traced code.  Code that every run executes but no
   order names goes just before it: linkopt-cut.o's constructor (and
   linkopt-prefetch.o's when the script has no page of its own for it:
   prefetch_apart false), and .fini, which the default script puts after
   all the cold code, where it costs a page of its own.  At the end, not
   the head, so that the page packing of the traced sections, computed
   from where they begin, still holds. */
static void print_hot_end(const struct ordering *order, bool prefetch_apart)
{
	if (order->hot > 0) {
		printf("    /* linkopt: run by every start-up or exit, named by no trace */\n");
		if (!prefetch_apart)
			printf("    *(%s)\n", EMIT_PREFETCH_SECTION);
		printf("    *(%s)\n", EMIT_CUT_SECTION);
		printf("    KEEP (*(SORT_NONE(.fini)))\n");
	}
	printf("    PROVIDE_HIDDEN(__linkopt_hot_end = .);\n");
}

/* True if GNU ld's lexer takes the byte in a bare name, and no pattern
   reads it as a wildcard. */
static bool ld_bare_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("_.$-+~", c);
}

/* name as a GNU ld script's input-section pattern that matches that
   section and no other (a new string): bare when every byte allows it,
   else in double quotes, where ld 2.40 takes every byte but '"' as it is
   and still reads '*', '?' and '[' as wildcards: each of those in a
   bracket ("[*]"), which fnmatch matches to the byte alone.  NULL, *why
   saying why, for a name no pattern can match alone: a double quote or a
   control byte, which no quoted name can hold, or a backslash with a
   wildcard (fnmatch reads it as an escape). */
static char *ld_section_pattern(const char *name, const char **why)
{
	const unsigned char *p;
	bool bare = *name != '\0', wild = strpbrk(name, "*?[") != NULL;
	char *pattern, *q;

	*why = NULL;
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p == '"')
			*why = "it holds a double quote, which no name in a GNU ld script can";
		else if (*p < ' ' || *p == 0x7f)
			*why = "it holds a control character, which no name in a GNU ld script can";
		else if (*p == '\\' && wild)
			*why = "it holds a backslash and a wildcard character, which GNU ld's pattern match reads as an "
			       "escape";
		if (*why)
			return NULL;
		bare = bare && ld_bare_byte(*p);
	}
	if (bare)
		return xstrdup(name);
	q = pattern = xmalloc(3 * strlen(name) + 3);
	*q++ = '"';
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p == '*' || *p == '?' || *p == '[')
			q += sprintf(q, "[%c]", *p);
		else
			*q++ = (char)*p;
	}
	*q++ = '"';
	*q = '\0';
	return pattern;
}

/* Why gold's --section-ordering-file cannot name this section alone
   (gold reads the file line by line, takes a line that starts with '#'
   for a comment, drops a trailing carriage return and reads a line with
   '*', '?' or '[' as a glob, FNM_NOESCAPE, that also orders every
   unlisted section it matches); NULL when it can. */
static const char *gold_unwritable(const char *name)
{
	size_t n = strlen(name);

	if (!n)
		return "it is empty";
	if (strchr(name, '\n'))
		return "it holds a newline";
	if (name[0] == '#')
		return "gold reads a line that starts with '#' as a comment";
	if (name[n - 1] == '\r')
		return "gold drops a carriage return at the end of a line";
	if (strpbrk(name, "*?["))
		return "gold reads '*', '?' and '[' as a glob, which would order other sections too";
	return NULL;
}

/* Why lld's and mold's --symbol-ordering-file (call_graph: lld's
   --call-graph-ordering-file, whose fields are separated by spaces) cannot
   name this symbol: lld reads the file line by line, trims white space
   from each end and skips a line that starts with '#'; a '#' anywhere is
   refused, the form being mold's too.  NULL when they can. */
static const char *lld_unwritable(const char *name, bool call_graph)
{
	size_t n = strlen(name);

	if (!n)
		return "it is empty";
	if (strchr(name, '\n'))
		return "it holds a newline";
	if (strchr(" \t\v\f\r", name[0]) || strchr(" \t\v\f\r", name[n - 1]))
		return "lld and mold trim white space from each end of a line";
	if (strchr(name, '#'))
		return "it holds '#', which starts a comment in a symbol ordering file";
	if (call_graph && strchr(name, ' '))
		return "lld splits a line of its call-graph file at spaces";
	return NULL;
}

/* Reports why the form cannot write name, a section or a symbol (what)
   of unit (NULL: of the traces' call graph). */
static void report_unwritable(const char *unit, const char *what, const char *name, const char *form,
			      const char *why)
{
	/* in single quotes, or, when it holds a blank or a control byte, as a
	   trace quotes it */
	char *quoted = trace_quote(name), *shown = quoted[0] == '"' ? xstrdup(quoted) : xasprintf("'%s'", quoted);

	if (unit)
		error("%s: %s %s cannot be written in %s: %s", unit, what, shown, form, why);
	else
		error("%s %s of the traces' call graph cannot be written in %s: %s", what, shown, form, why);
	free(shown);
	free(quoted);
}

/* True if every name the form writes of the order can be written so that
   the linker reads that name and no other; else false, after reporting
   the first that cannot. */
static bool names_writable(const struct ordering *order, enum emit_format format)
{
	size_t i, k;

	for (i = 0; i < order->count; i++) {
		const struct ordering_entry *e = &order->entries[i];
		const char *why = NULL;

		if (format == EMIT_GNU_LD && e->section && emit_output_section(e->section)) {
			free(ld_section_pattern(e->section, &why));
			if (why) {
				report_unwritable(e->unit, "section", e->section, "a GNU ld script", why);
				return false;
			}
		}
		if (format == EMIT_GOLD && e->section && (why = gold_unwritable(e->section))) {
			report_unwritable(e->unit, "section", e->section, "gold's --section-ordering-file", why);
			return false;
		}
		for (k = 0; format == EMIT_LLD && k < e->symbol_count; k++) {
			if ((why = lld_unwritable(e->symbols[k], false))) {
				report_unwritable(e->unit, "symbol", e->symbols[k], "lld's and mold's --symbol-ordering-file",
						  why);
				return false;
			}
		}
	}
	for (i = 0; format == EMIT_CALL_GRAPH && i < order->edge_count; i++) {
		const char *names[] = { order->edges[i].caller, order->edges[i].callee }, *why;

		for (k = 0; k < 2; k++) {
			if ((why = lld_unwritable(names[k], true))) {
				report_unwritable(NULL, "symbol", names[k], "lld's --call-graph-ordering-file", why);
				return false;
			}
		}
	}
	return true;
}

/* True if the entry is a code entry (whole units are code). */
static bool is_code(const struct ordering_entry *e)
{
	const char *out = e->section ? emit_output_section(e->section) : ".text";

	return out && !strcmp(out, ".text");
}

/* The entries [from, to) of order that go to output, as the script's
   input-section statements. */
static void print_entries(const struct ordering *order, size_t from, size_t to, const char *output)
{
	size_t i;

	for (i = from; i < to && i < order->count; i++) {
		const struct ordering_entry *e = &order->entries[i];

		if (e->section) {
			const char *out = emit_output_section(e->section);

			if (out && !strcmp(out, output)) {
				const char *why;
				char *pattern = ld_section_pattern(e->section, &why);

				printf("    %s(%s)\n", e->file, pattern);
				free(pattern);
			}
		} else if (!strcmp(output, ".text")) {
			printf("    %s(.text .text.*)\n", e->file);
		}
	}
}

/* The untraced code entries [from, to): in .text, or with
   order->untraced_segment, in output sections of their own of at most that
   many bytes each (an entry larger alone), each a segment of its own: a
   fault in an executable mapping reads ahead from the faulting page to
   the mapping's end at most (Linux 6.16 and later), so that code no trace
   ran, when a later run touches it, costs a read-ahead window no longer
   than its segment.  .text is closed before them and the rest of its
   statement goes on in .text.linkopt.rest (where cold-start's traced
   tail goes); two pages of addresses (none of the file) between
   sections make GNU ld start a segment at each. */
static void print_untraced_code(const struct ordering *order, size_t from, size_t to)
{
	uint64_t bytes = 0;
	size_t i, chunk = 0;

	if (!order->untraced_segment) {
		print_entries(order, from, to, ".text");
		return;
	}
	printf("    /* linkopt: the untraced code in segments of at most %llu KiB */\n  }\n",
	       (unsigned long long)(order->untraced_segment / 1024));
	for (i = from; i < to && i < order->count; i++) {
		const struct ordering_entry *e = &order->entries[i];

		if (!is_code(e))
			continue;
		if (chunk == 0 || (bytes && bytes + e->size > order->untraced_segment)) {
			if (chunk)
				printf("  }\n");
			printf("  . = . + 2 * CONSTANT (MAXPAGESIZE);\n  .text.linkopt.%zu :\n  {\n", chunk++);
			bytes = 0;
		}
		bytes += e->size;
		print_entries(order, i, i + 1, ".text");
	}
	if (chunk)
		printf("  }\n");
	printf("  . = . + 2 * CONSTANT (MAXPAGESIZE);\n  .text.linkopt.rest :\n  {\n");
}

/* Around the traced code of .text (the order's hot head),
   __linkopt_hot_start and __linkopt_hot_end mark the range that
   linkopt-prefetch.o asks the kernel to read at start-up.  When the
   traced code is split (head_end < hot), its head part ends at
   __linkopt_hot_head_end and its end part, after the untraced code,
   starts at __linkopt_hot_tail_start. */
static void print_patterns(const struct ordering *order, const char *output, bool prefetch_apart)
{
	bool text = !strcmp(output, ".text");
	size_t hot = order->hot < order->count ? order->hot : order->count;
	size_t head_end = order->head_end < hot ? order->head_end : hot;

	if (text && head_end < hot) {
		printf("\n    /* linkopt: the ordered input sections of %s: the traced ones first used first, "
		       "the head of them here, the rest at the end, after the untraced ones */\n", output);
		printf("    PROVIDE_HIDDEN(__linkopt_hot_start = .);\n");
		print_entries(order, 0, head_end, output);
		printf("    PROVIDE_HIDDEN(__linkopt_hot_head_end = .);\n");
		printf("    /* linkopt: the untraced ones */\n");
		print_untraced_code(order, hot, order->count);
		printf("    /* linkopt: the rest of the traced ones */\n");
		printf("    PROVIDE_HIDDEN(__linkopt_hot_tail_start = .);\n");
		print_entries(order, head_end, hot, output);
		print_hot_end(order, prefetch_apart);
	} else if (!strcmp(output, ".rodata") && order->rodata == ORDERING_RODATA_LAST) {
		printf("\n    /* linkopt: the ordered input sections of %s, the traced ones last, first used "
		       "first */\n", output);
		print_entries(order, hot, order->count, output);
		printf("    /* linkopt: the traced ones */\n");
		print_entries(order, 0, hot, output);
	} else if (!strcmp(output, ".rodata") && order->rodata == ORDERING_RODATA_APART) {
		printf("\n    /* linkopt: the traced input sections of %s, first used first (the others in "
		       ".rodata.untraced, after the data segment) */\n", output);
		print_entries(order, 0, hot, output);
	} else if (!strcmp(output, ".rodata") && order->rodata == ORDERING_RODATA_BEFORE_CODE) {
		printf("\n    /* linkopt: the traced input sections of %s, first used first (the others in "
		       ".rodata.untraced, after the code) */\n", output);
		print_entries(order, 0, hot, output);
	} else if (!strcmp(output, ".rodata.untraced")) {
		printf("\n    /* linkopt: the untraced input sections of .rodata */\n");
		print_entries(order, hot, order->count, ".rodata");
	} else {
		printf("\n    /* linkopt: the ordered input sections of %s, first used first */\n", output);
		if (text)
			printf("    PROVIDE_HIDDEN(__linkopt_hot_start = .);\n");
		print_entries(order, 0, hot, output);
		if (text) {
			print_hot_end(order, prefetch_apart);
			print_untraced_code(order, hot, order->count);
		} else {
			print_entries(order, hot, order->count, output);
		}
	}
	printf("    /* linkopt: end */\n   ");
}

/* The statement of output section name that starts at or after from and
   before limit: its first byte and the byte after its line's end, or
   false.  Statements of the form "NAME ... : ... { ... }", braces
   balanced. */
static bool find_statement(char *from, const char *limit, const char *name, char **start, char **end)
{
	size_t n = strlen(name);
	char *line = from;

	while (line && *line && line < limit) {
		char *q = line;

		while (*q == ' ' || *q == '\t')
			q++;
		if (!strncmp(q, name, n) && (q[n] == ' ' || q[n] == '\t' || q[n] == ':')) {
			char *p = strchr(q, '{');
			int depth = 0;

			if (!p)
				return false;
			for (; *p; p++) {
				if (*p == '{')
					depth++;
				else if (*p == '}' && --depth == 0)
					break;
			}
			if (!*p)
				return false;
			p = strchr(p, '\n');
			*start = line;
			*end = p ? p + 1 : line + strlen(line);
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/* The braces of the statement [start, end): *open at its '{', *close at
   its last '}'; false when it has none. */
static bool statement_braces(char *start, char *end, char **open, char **close)
{
	if (!(*open = memchr(start, '{', end - start)))
		return false;
	for (*close = end; *close > *open && **close != '}'; (*close)--)
		;
	return true;
}

/* The start of the line holding at, in script. */
static char *line_start(char *script, char *at)
{
	while (at > script && at[-1] != '\n')
		at--;
	return at;
}

/* The start of the line before statement (which starts a line of
   script), when that line aligns to a page; else NULL. */
static char *page_aligned_before(char *script, char *statement)
{
	char *line, *align;

	if (statement == script)
		return NULL;
	line = line_start(script, statement - 1);
	align = strstr(line, "ALIGN(CONSTANT (MAXPAGESIZE))");
	return align && align < statement ? line : NULL;
}

/* ORDERING_RODATA_BEFORE_CODE, from the script copy whose .rodata
   statement is [rodata_start, rodata_end) and from which the read-only
   unwinding tables' statements (tables) were taken out, limit pointing at
   its DATA_SEGMENT_ALIGN: the headers and relocations, the data segment
   (from its comment, or the DATA_SEGMENT_ALIGN line, to the end of the
   DATA_SEGMENT_END line), .rodata alone (the traced list) and .rodata1
   on a page of their own, the code (from the page alignment before .init
   to the rodata-segment point, checked for), .rodata.untraced with .rodata's patterns
   and the tables, the rest.  NULL when the script lacks one of those. */
static char *rodata_before_code(char *copy, char *rodata_start, char *rodata_end, const char *tables, char *limit)
{
	char *init, *init_end, *code, *data, *data_end, *ro_point, *open, *close, *r1 = NULL, *r1_end = NULL, *comment;

	if (!find_statement(copy, rodata_start, ".init", &init, &init_end) ||
	    !(code = page_aligned_before(copy, init)))
		return NULL;
	if (!(ro_point = strstr(init, "SEGMENT_START(\"rodata-segment\"")) || ro_point > rodata_start)
		return NULL;
	data = line_start(copy, limit);
	comment = strstr(rodata_end, "/* Adjust the address for the data segment");
	if (comment && comment < limit)
		data = line_start(copy, comment);
	if (!(data_end = strstr(limit, "DATA_SEGMENT_END")) || !(data_end = strchr(data_end, '\n')))
		return NULL;
	data_end++;
	if (!statement_braces(rodata_start, rodata_end, &open, &close))
		return NULL;
	if (!find_statement(rodata_end, data, ".rodata1", &r1, &r1_end))
		r1 = r1_end = rodata_end;
	return xasprintf("%.*s"                 /* the headers and relocations */
			 "%.*s"                 /* the data segment */
			 "  . = ALIGN(CONSTANT (MAXPAGESIZE));\n"
			 "  .rodata         : {\n  }\n"
			 "%.*s"                 /* .rodata1 */
			 "%.*s"                 /* the code, to the rodata-segment point and .rodata */
			 "  .rodata.untraced :\n  {\n   %.*s\n  }\n"
			 "%s"                   /* the tables */
			 "%.*s%.*s"             /* what was between .rodata and the data segment but .rodata1 */
			 "%s",                  /* the rest */
			 (int)(code - copy), copy, (int)(data_end - data), data, (int)(r1_end - r1), r1,
			 (int)(rodata_start - code), code, (int)(close - open - 1), open + 1, tables,
			 (int)(r1 - rodata_end), rodata_end, (int)(data - r1_end), r1_end, data_end);
}

/* The script with its read-only data segment rearranged as order->rodata
   says (ORDERING_RODATA_FIRST: as it is).  LAST: the read-only unwinding
   tables' statements (those between .rodata and the data segment) before
   .rodata's, so that the traced .rodata ends the segment, next to the
   data segment.  APART: .rodata's statement keeps no pattern (the
   traced list alone), and a .rodata.untraced statement with its patterns,
   then the unwinding tables' statements, go after the data segment, at
   the ldata-segment point (where x86-64's script puts .lrodata), in a
   read-only segment of their own.  NULL when the script lacks those
   statements where expected. */
static char *rearrange_rodata(const char *script, enum ordering_rodata rodata)
{
	static const char *const moved[] = { ".eh_frame_hdr", ".eh_frame", ".sframe", ".gcc_except_table",
					     ".gnu_extab", ".exception_ranges", NULL };
	char *copy = xstrdup(script), *tables, *rodata_start, *rodata_end, *limit, *out = NULL, *start, *end, *ldata,
	     *open, *close;
	size_t taken = 0;
	int k;

	if (rodata == ORDERING_RODATA_FIRST)
		return copy;
	tables = xmalloc(strlen(copy) + 1);
	if (!find_statement(copy, copy + strlen(copy), ".rodata", &rodata_start, &rodata_end) ||
	    !(limit = strstr(rodata_end, "DATA_SEGMENT_ALIGN")))
		goto done;
	for (k = 0; moved[k]; k++) {
		if (!find_statement(rodata_end, limit, moved[k], &start, &end)) {
			if (!k)
				goto done;
			continue;
		}
		memcpy(tables + taken, start, end - start);
		taken += end - start;
		memmove(start, end, strlen(end) + 1);
		limit -= end - start;
	}
	tables[taken] = '\0';
	if (rodata == ORDERING_RODATA_LAST) {
		out = xasprintf("%.*s%s%s", (int)(rodata_start - copy), copy, tables, rodata_start);
		goto done;
	}
	if (rodata == ORDERING_RODATA_BEFORE_CODE) {
		out = rodata_before_code(copy, rodata_start, rodata_end, tables, limit);
		goto done;
	}
	/* APART: the list of .rodata alone; its patterns, and the tables, after the data segment */
	if (!(ldata = strstr(limit, "SEGMENT_START(\"ldata-segment\"")) || !(ldata = strchr(ldata, '\n')) ||
	    !statement_braces(rodata_start, rodata_end, &open, &close))
		goto done;
	ldata++;
	out = xasprintf("%.*s  .rodata         : {\n  }\n%.*s"
			"  .rodata.untraced ALIGN(CONSTANT (MAXPAGESIZE)) + (. & (CONSTANT (MAXPAGESIZE) - 1)) :\n"
			"  {\n   %.*s\n  }\n%s%s",
			(int)(rodata_start - copy), copy, (int)(ldata - rodata_end), rodata_end, (int)(close - open - 1),
			open + 1, tables, ldata);
done:
	free(copy);
	free(tables);
	return out;
}

bool emit_can_place_rodata(char **ld_argv, const char *ld_program, enum ordering_rodata rodata)
{
	char *script = default_script(ld_argv, ld_program), *placed;
	bool can;

	if (!script)
		return false;
	placed = rearrange_rodata(script, rodata);
	can = placed != NULL;
	free(placed);
	free(script);
	return can;
}

/* Where in script linkopt-prefetch.o's constructor gets a page of its
   own (the start of the .init statement, whose line before aligns it to
   a page: the code after it then starts where it did in the traced link,
   modulo the page, as the packing assumes), or NULL: no traced code, or no
   such .init. */
static char *prefetch_page(char *script, const struct ordering *order)
{
	char *init, *init_end;

	if (order->hot == 0 || !find_statement(script, script + strlen(script), ".init", &init, &init_end) ||
	    !page_aligned_before(script, init))
		return NULL;
	return init;
}

static int emit_gnu_ld(const struct ordering *order, char **ld_argv, const char *ld_program)
{
	static const char *const outputs[] = { ".text", ".rodata", ".data.rel.ro", ".data", ".bss", ".rodata.untraced",
					       NULL };
	char *script = default_script(ld_argv, ld_program), *at[8], *p, *apart;
	bool prefetch_apart;
	int o, k;

	if (!script) {
		error("%s --verbose: cannot read the linker's default script", ld_program);
		return EXIT_INPUT;
	}
	if (order->rodata != ORDERING_RODATA_FIRST) {
		char *placed = rearrange_rodata(script, order->rodata);

		free(script);
		if (!placed) {
			error("%s --verbose: the default script has no .rodata and .eh_frame_hdr statements before its "
			      "data segment%s: cannot place the traced .rodata for a cold start", ld_program,
			      order->rodata == ORDERING_RODATA_APART ? ", or no ldata-segment point after it" :
			      order->rodata == ORDERING_RODATA_BEFORE_CODE ?
				      ", or no page-aligned .init before it and rodata-segment point after the code" : "");
			return EXIT_INPUT;
		}
		script = placed;
	}
	for (o = 0; outputs[o]; o++) {
		at[o] = output_section_body(script, outputs[o]);
		if (!at[o] && !strcmp(outputs[o], ".text")) {
			error("%s --verbose: the default script has no .text output section", ld_program);
			free(script);
			return EXIT_INPUT;
		}
	}
	apart = prefetch_page(script, order);
	prefetch_apart = apart != NULL;
	printf("/* %s */\n", order->provenance);
	/* Copy the script, inserting each list at its place, in script order. */
	p = script;
	for (;;) {
		int next = -1;

		for (k = 0; outputs[k]; k++)
			if (at[k] && at[k] >= p && (next < 0 || at[k] < at[next]))
				next = k;
		if (apart && apart >= p && (next < 0 || apart < at[next])) {
			fwrite(p, 1, apart - p, stdout);
			printf("  /* linkopt: linkopt-prefetch.o's constructor on a page of its own before the code: its\n"
			       "     call faults a read-ahead window in over the traced code that follows, not from the\n"
			       "     traced code's end into code no trace ran, before the cut it makes */\n"
			       "  .text.linkopt.prefetch : { *(%s) }\n"
			       "  . = ALIGN(CONSTANT (MAXPAGESIZE));\n", EMIT_PREFETCH_SECTION);
			p = apart;
			apart = NULL;
			continue;
		}
		if (next < 0)
			break;
		fwrite(p, 1, at[next] - p, stdout);
		print_patterns(order, outputs[next], prefetch_apart);
		p = at[next];
		at[next] = NULL;
	}
	fputs(p, stdout);
	putchar('\n');
	free(script);
	return 0;
}

/* The order's entries in the order a list form names them: the traced
   ones and the untraced ones, and when the traced code is split
   (head_end < hot), its head, then the untraced code, then the rest of
   the traced entries, then the untraced data. */
static size_t *list_sequence(const struct ordering *order)
{
	size_t *seq = xmalloc((order->count ? order->count : 1) * sizeof(*seq)), n = 0, i;
	size_t hot = order->hot < order->count ? order->hot : order->count;
	size_t head_end = order->head_end < hot ? order->head_end : hot;

	for (i = 0; i < head_end; i++)
		seq[n++] = i;
	for (i = hot; head_end < hot && i < order->count; i++)
		if (is_code(&order->entries[i]))
			seq[n++] = i;
	for (i = head_end; i < hot; i++)
		seq[n++] = i;
	for (i = hot; i < order->count; i++)
		if (head_end == hot || !is_code(&order->entries[i]))
			seq[n++] = i;
	return seq;
}

/* Each symbol once: the first entry to name it places it.  A name that a
   shared library defines too stays: lld orders this link's definition by it
   (a local one too: it looks names up among every object's locals as
   well), although it warns about the shared one. */
static void emit_lld(const struct ordering *order)
{
	struct strmap seen = { 0 };
	size_t *seq = list_sequence(order), i, k;

	printf("# %s\n", order->provenance);
	if (order->shared_name_count) {
		printf("# lld warns \"unable to order shared symbol\" (\"undefined symbol\" when --as-needed drops the "
		       "library) for names that a shared library defines too, and orders this link's own "
		       "definitions all the same (-Wl,--no-warn-symbol-ordering silences it):");
		for (i = 0; i < order->shared_name_count; i++)
			printf(" %s", order->shared_names[i]);
		putchar('\n');
	}
	for (i = 0; i < order->count; i++) {
		const struct ordering_entry *e = &order->entries[seq[i]];

		for (k = 0; k < e->symbol_count; k++) {
			void **slot = strmap_slot(&seen, e->symbols[k]);

			if (*slot)
				continue;
			*slot = (void *)1;
			printf("%s\n", e->symbols[k]);
		}
	}
	strmap_free(&seen);
	free(seq);
}

static void emit_call_graph(const struct ordering *order)
{
	size_t i;

	printf("# %s\n", order->provenance);
	for (i = 0; i < order->edge_count; i++)
		printf("%s %s %lu\n", order->edges[i].caller, order->edges[i].callee, order->edges[i].weight);
}

static int emit_gold(const struct ordering *order)
{
	struct strmap seen = { 0 };
	size_t *seq = list_sequence(order), i;

	printf("# %s\n", order->provenance);
	for (i = 0; i < order->count; i++) {
		const char *name = order->entries[seq[i]].section;
		void **slot;

		if (!name) {
			error("gold orders input sections by name: use --granularity=section");
			strmap_free(&seen);
			free(seq);
			return EXIT_USAGE;
		}
		slot = strmap_slot(&seen, name);
		if (*slot)
			continue;
		*slot = (void *)1;
		printf("%s\n", name);
	}
	strmap_free(&seen);
	free(seq);
	return 0;
}

int emit_order(const struct ordering *order, enum emit_format format, char **ld_argv, const char *ld_program)
{
	size_t i;

	if (!names_writable(order, format))
		return EXIT_INPUT;
	switch (format) {
	case EMIT_GNU_LD:
		return emit_gnu_ld(order, ld_argv, ld_program);
	case EMIT_LLD:
		emit_lld(order);
		return 0;
	case EMIT_GOLD:
		return emit_gold(order);
	case EMIT_CALL_GRAPH:
		emit_call_graph(order);
		return 0;
	case EMIT_LIST:
		for (i = 0; i < order->count; i++)
			printf("%s\n", order->entries[i].unit);
		return 0;
	}
	return 0;
}
