#include "pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static void report_bound(const struct hot_order *hot, uint64_t page_size)
{
	uint64_t bytes = 0, page = page_size ? page_size : 4096;
	size_t i, sections = 0;

	for (i = 0; i < hot->count; i++)
		if (hot_bound_for_text(&hot->sections[i])) {
			bytes += hot->sections[i].unit->elf.sections[hot->sections[i].section].size;
			sections++;
		}
	fprintf(stderr, "deporder: the traced code: %zu sections, %llu bytes: at least %llu pages of %llu "
		"(the whole-function bound)\n", sections, (unsigned long long)bytes,
		(unsigned long long)((bytes + page - 1) / page), (unsigned long long)page);
}

/* Places after pos, on pos's page, the hot sections after i that fit there
   whole; returns where the last one ends. */
static uint64_t fill_page(const struct hot_order *hot, size_t i, uint64_t pos, uint64_t page_size,
			  struct unit_section *out, size_t *n, bool *placed)
{
	size_t k;

	for (k = i + 1; k < hot->count; k++) {
		const struct elf_section *f;
		uint64_t start;

		if (placed[k] || !hot_bound_for_text(&hot->sections[k]))
			continue;
		f = &hot->sections[k].unit->elf.sections[hot->sections[k].section];
		start = align_up(pos, f->addralign);
		if (start / page_size == (start + f->size - 1) / page_size && start / page_size == pos / page_size) {
			out[(*n)++] = hot->sections[k];
			placed[k] = true;
			pos = start + f->size;
		}
	}
	return pos;
}

void pack_hot(struct hot_order *hot, uint64_t page_size)
{
	struct unit_section *out;
	bool *placed;
	uint64_t pos = hot->text_start;
	size_t i, n = 0;

	report_bound(hot, page_size);
	if (!page_size)
		return;
	out = xcalloc(hot->count ? hot->count : 1, sizeof(*out));
	placed = xcalloc(hot->count ? hot->count : 1, sizeof(bool));
	for (i = 0; i < hot->count; i++) {
		const struct unit_section *us = &hot->sections[i];
		const struct elf_section *s;
		uint64_t start;

		if (placed[i])
			continue;
		if (!hot_bound_for_text(us)) {
			out[n++] = *us;
			placed[i] = true;
			continue;
		}
		s = &us->unit->elf.sections[us->section];
		start = align_up(pos, s->addralign);
		if (s->size < page_size && start / page_size != (start + s->size - 1) / page_size) {
			pos = fill_page(hot, i, pos, page_size, out, &n, placed);
			start = align_up(pos, s->addralign);
		}
		out[n++] = *us;
		placed[i] = true;
		pos = start + s->size;
	}
	memcpy(hot->sections, out, n * sizeof(*out));
	free(out);
	free(placed);
}
