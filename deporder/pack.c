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

/* Places after pos, on pos's page, the code sections after i that fit
   there whole; returns where the last one ends. */
static uint64_t fill_page(const struct unit_section *sections, size_t count, size_t i, uint64_t pos,
			  uint64_t page_size, struct unit_section *out, size_t *n, bool *placed)
{
	size_t k;

	for (k = i + 1; k < count; k++) {
		const struct elf_section *f;
		uint64_t start;

		if (placed[k] || !hot_bound_for_text(&sections[k]))
			continue;
		f = &sections[k].unit->elf.sections[sections[k].section];
		start = align_up(pos, f->addralign);
		if (start / page_size == (start + f->size - 1) / page_size && start / page_size == pos / page_size) {
			out[(*n)++] = sections[k];
			placed[k] = true;
			pos = start + f->size;
		}
	}
	return pos;
}

void pack_range(struct unit_section *sections, size_t count, uint64_t start_address, uint64_t page_size)
{
	struct unit_section *out;
	bool *placed;
	uint64_t pos = start_address;
	size_t i, n = 0;

	if (!page_size || !count)
		return;
	out = xcalloc(count, sizeof(*out));
	placed = xcalloc(count, sizeof(bool));
	for (i = 0; i < count; i++) {
		const struct unit_section *us = &sections[i];
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
			pos = fill_page(sections, count, i, pos, page_size, out, &n, placed);
			start = align_up(pos, s->addralign);
		}
		out[n++] = *us;
		placed[i] = true;
		pos = start + s->size;
	}
	memcpy(sections, out, n * sizeof(*out));
	free(out);
	free(placed);
}

void pack_hot(struct hot_order *hot, uint64_t page_size)
{
	report_bound(hot, page_size);
	pack_range(hot->sections, hot->count, hot->text_start, page_size);
}
