#include "emit.h"
#include "util.h"
#include "linker.h"

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
   order names goes just before it: linkopt-prefetch.o's constructor, and
   .fini, which the default script puts after all the cold code, where it
   costs a page of its own.  At the end, not the head, so that the page
   packing of the traced sections, computed from where .text began in the
   traced link, still holds. */
static void print_hot_end(const struct ordering *order)
{
	if (order->hot > 0) {
		printf("    /* linkopt: run by every start-up or exit, named by no trace */\n");
		printf("    *(%s)\n", EMIT_PREFETCH_SECTION);
		printf("    KEEP (*(SORT_NONE(.fini)))\n");
	}
	printf("    PROVIDE_HIDDEN(__linkopt_hot_end = .);\n");
}

/* Around the traced code of .text (the order's hot head),
   __linkopt_hot_start and __linkopt_hot_end mark the range that
   linkopt-prefetch.o asks the kernel to read at start-up. */
static void print_patterns(const struct ordering *order, const char *output)
{
	size_t i;
	bool text = !strcmp(output, ".text");

	printf("\n    /* linkopt: the ordered input sections of %s, first used first */\n", output);
	if (text)
		printf("    PROVIDE_HIDDEN(__linkopt_hot_start = .);\n");
	for (i = 0; i < order->count; i++) {
		const struct ordering_entry *e = &order->entries[i];

		if (text && i == order->hot)
			print_hot_end(order);
		if (e->section) {
			const char *out = emit_output_section(e->section);

			if (out && !strcmp(out, output))
				printf("    %s(%s)\n", e->file, e->section);
		} else if (text) {
			printf("    %s(.text .text.*)\n", e->file);
		}
	}
	if (text && order->hot >= order->count)
		print_hot_end(order);
	printf("    /* linkopt: end */\n   ");
}

static int emit_gnu_ld(const struct ordering *order, char **ld_argv, const char *ld_program)
{
	static const char *const outputs[] = { ".text", ".rodata", ".data.rel.ro", ".data", ".bss", NULL };
	char *script = default_script(ld_argv, ld_program), *at[8], *p;
	int o, k;

	if (!script) {
		error("%s --verbose: cannot read the linker's default script", ld_program);
		return EXIT_INPUT;
	}
	for (o = 0; outputs[o]; o++) {
		at[o] = output_section_body(script, outputs[o]);
		if (!at[o] && !strcmp(outputs[o], ".text")) {
			error("%s --verbose: the default script has no .text output section", ld_program);
			free(script);
			return EXIT_INPUT;
		}
	}
	printf("/* %s */\n", order->provenance);
	/* Copy the script, inserting each list at its place, in script order. */
	p = script;
	for (;;) {
		int next = -1;

		for (k = 0; outputs[k]; k++)
			if (at[k] && at[k] >= p && (next < 0 || at[k] < at[next]))
				next = k;
		if (next < 0)
			break;
		fwrite(p, 1, at[next] - p, stdout);
		print_patterns(order, outputs[next]);
		p = at[next];
		at[next] = NULL;
	}
	fputs(p, stdout);
	putchar('\n');
	free(script);
	return 0;
}

/* Each symbol once: the first entry to name it places it.  A name that a
   shared library defines too stays: lld orders this link's definition by it
   (a local one too: it looks names up among every object's locals as
   well), although it warns about the shared one. */
static void emit_lld(const struct ordering *order)
{
	struct strmap seen = { 0 };
	size_t i, k;

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
		const struct ordering_entry *e = &order->entries[i];

		for (k = 0; k < e->symbol_count; k++) {
			void **slot = strmap_slot(&seen, e->symbols[k]);

			if (*slot)
				continue;
			*slot = (void *)1;
			printf("%s\n", e->symbols[k]);
		}
	}
	strmap_free(&seen);
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
	size_t i;

	printf("# %s\n", order->provenance);
	for (i = 0; i < order->count; i++) {
		const char *name = order->entries[i].section;
		void **slot;

		if (!name) {
			error("gold orders input sections by name: use --granularity=section");
			strmap_free(&seen);
			return EXIT_USAGE;
		}
		slot = strmap_slot(&seen, name);
		if (*slot)
			continue;
		*slot = (void *)1;
		printf("%s\n", name);
	}
	strmap_free(&seen);
	return 0;
}

int emit_order(const struct ordering *order, enum emit_format format, char **ld_argv, const char *ld_program)
{
	size_t i;

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
