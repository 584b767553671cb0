#include "emit.h"
#include "linker.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The output section of the default script an input section goes to. */
static const char *output_section_of(const char *name)
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

/* ld's file pattern for a unit: the path, or archive:member. */
static char *file_pattern(const struct unit *u)
{
	if (u->is_member && !u->input->archive->thin)
		return xasprintf("%s:%s", u->input->path, u->input->archive->members[u->member].name);
	return xstrdup(u->name);
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

/* hot: how many leading entries of order the traces touched.  Around the
   traced code of .text, __linkopt_hot_start and __linkopt_hot_end mark the
   range that linkopt-prefetch.o asks the kernel to read at start-up. */
static void print_patterns(const struct unit_section *order, size_t count, size_t hot, const char *output)
{
	size_t i;
	bool text = !strcmp(output, ".text");

	printf("\n    /* linkopt: the ordered input sections of %s, first used first */\n", output);
	if (text)
		printf("    PROVIDE_HIDDEN(__linkopt_hot_start = .);\n");
	for (i = 0; i < count; i++) {
		if (text && i == hot)
			printf("    PROVIDE_HIDDEN(__linkopt_hot_end = .);\n");
		const struct unit *u = order[i].unit;
		char *file = file_pattern(u);

		if (order[i].section) {
			const char *name = u->elf.sections[order[i].section].name;
			const char *out = output_section_of(name);

			if (out && !strcmp(out, output))
				printf("    %s(%s)\n", file, name);
		} else if (!strcmp(output, ".text")) {
			printf("    %s(.text .text.*)\n", file);
		}
		free(file);
	}
	if (text && hot >= count)
		printf("    PROVIDE_HIDDEN(__linkopt_hot_end = .);\n");
	printf("    /* linkopt: end */\n   ");
}

static int emit_gnu_ld(const struct unit_section *order, size_t count, size_t hot, char **ld_argv,
		       const char *ld_program, const char *provenance)
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
	printf("/* %s */\n", provenance);
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
		print_patterns(order, count, hot, outputs[next]);
		p = at[next];
		at[next] = NULL;
	}
	fputs(p, stdout);
	putchar('\n');
	free(script);
	return 0;
}

static void emit_lld(const struct unit_section *order, size_t count, const char *provenance)
{
	struct strmap seen = { 0 };
	size_t i, k;

	printf("# %s\n", provenance);
	for (i = 0; i < count; i++) {
		const struct unit *u = order[i].unit;

		for (k = 1; k < u->elf.symbol_count; k++) {
			const struct elf_symbol *s = &u->elf.symbols[k];
			void **slot;

			if ((s->type != STT_FUNC && s->type != STT_OBJECT) || !s->name[0] || s->shndx == SHN_UNDEF ||
			    s->shndx >= SHN_LORESERVE || u->section_discarded[s->shndx])
				continue;
			if (order[i].section ? s->shndx != order[i].section
					     : !(u->elf.sections[s->shndx].flags & SHF_EXECINSTR))
				continue;
			slot = strmap_slot(&seen, s->name);
			if (*slot)
				continue;
			*slot = (void *)1;
			printf("%s\n", s->name);
		}
	}
	strmap_free(&seen);
}

/* The name lld knows a section by: the first function it defines. */
static const char *section_symbol(const struct unit_section *us)
{
	const struct unit *u = us->unit;
	size_t k;

	for (k = 1; k < u->elf.symbol_count; k++) {
		const struct elf_symbol *s = &u->elf.symbols[k];

		if (s->shndx == us->section && s->type == STT_FUNC && s->name[0])
			return s->name;
	}
	return NULL;
}

/* lld's --call-graph-ordering-file from the traces alone: consecutive first
   touches of a trace as caller and callee, weighted by how many traces
   have the pair. */
static void emit_call_graph(struct link *link, const char *provenance)
{
	struct strmap weights = { 0 };
	char **keys = NULL;
	size_t key_count = 0, key_capacity = 0, t, i;

	printf("# %s\n", provenance);
	for (t = 0; t < link->sequence_count; t++) {
		const struct trace_sequence *sq = &link->sequences[t];
		const char *previous = NULL;

		/* Functions only: data sections in the sequence are skipped over. */
		for (i = 0; i < sq->count; i++) {
			const char *a = previous, *b = section_symbol(&sq->items[i]);
			char *key;
			void **slot;

			if (!b)
				continue;
			previous = b;
			if (!a)
				continue;
			key = xasprintf("%s %s", a, b);
			slot = strmap_slot(&weights, key);
			if (!*slot) {
				*ARRAY_PUSH(keys, key_count, key_capacity) = key;
				*slot = (void *)0;
			} else {
				free(key);
			}
			*slot = (void *)((uintptr_t)*slot + 1);
		}
	}
	for (i = 0; i < key_count; i++)
		printf("%s %lu\n", keys[i], (unsigned long)(uintptr_t)strmap_get(&weights, keys[i]));
}

static int emit_gold(const struct unit_section *order, size_t count, const char *provenance)
{
	struct strmap seen = { 0 };
	size_t i;

	printf("# %s\n", provenance);
	for (i = 0; i < count; i++) {
		const char *name;
		void **slot;

		if (!order[i].section) {
			error("gold orders input sections by name: use --granularity=section");
			return EXIT_USAGE;
		}
		name = order[i].unit->elf.sections[order[i].section].name;
		slot = strmap_slot(&seen, name);
		if (*slot)
			continue;
		*slot = (void *)1;
		printf("%s\n", name);
	}
	strmap_free(&seen);
	return 0;
}

int emit_order(struct link *link, const struct unit_section *order, size_t count, size_t hot, enum emit_format format,
	       char **ld_argv, const char *ld_program, const char *provenance)
{
	size_t i;

	switch (format) {
	case EMIT_GNU_LD:
		return emit_gnu_ld(order, count, hot, ld_argv, ld_program, provenance);
	case EMIT_LLD:
		emit_lld(order, count, provenance);
		return 0;
	case EMIT_GOLD:
		return emit_gold(order, count, provenance);
	case EMIT_CALL_GRAPH:
		emit_call_graph(link, provenance);
		return 0;
	case EMIT_LIST:
		for (i = 0; i < count; i++)
			printf("%s\n", order[i].unit->name);
		return 0;
	}
	return 0;
}
