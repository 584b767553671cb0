#include "layout.h"
#include "emit.h"

#include <elf.h>

#define PAGE 4096 /* GNU ld's MAXPAGESIZE on x86-64 */
#include <stdlib.h>
#include <string.h>

/* The input section of the link the map's section s is: as
   hot_map_section finds it, or for a string or constant section the
   linker merged (whose size in the map is what was left of it), the
   unit's merged section of that name. */
static bool section_of(const struct hot_map *map, const struct ldmap_section *s, struct unit_section *us)
{
	struct unit *u;
	uint32_t k;

	if (hot_map_section(map, s, us))
		return true;
	u = strmap_get(&map->units, s->file);
	if (!u)
		return false;
	for (k = elfobj_section_by_name(&u->elf, s->name); k; k = elfobj_section_next_named(&u->elf, k)) {
		if ((u->elf.sections[k].flags & SHF_MERGE) && sections_is_unit(u, k)) {
			*us = (struct unit_section){ u, k };
			return true;
		}
	}
	return false;
}

/* The alignment the linker gives the map's section s: its object's (a
   section the linker rewrote, .eh_frame say, is no longer its object's
   size: its object's section of that name), or, for a section no object
   of the link has, what its address shows. */
static uint64_t alignment_of(const struct hot_map *map, const struct ldmap_section *s)
{
	struct unit_section us;
	struct unit *u;
	uint32_t k;
	uint64_t a;

	if (section_of(map, s, &us)) {
		a = us.unit->elf.sections[us.section].addralign;
		return a ? a : 1;
	}
	if ((u = strmap_get(&map->units, s->file)) && (k = elfobj_section_by_name(&u->elf, s->name))) {
		a = u->elf.sections[k].addralign;
		return a ? a : 1;
	}
	for (a = 1; a < 64 && !(s->address & a); a <<= 1)
		;
	return a;
}

struct placing {
	struct layout *layout;
	bool *placed;
	uint64_t at;
};

static void place(struct placing *p, size_t i)
{
	const struct ldmap_section *s = &p->layout->map->map.sections[i];
	uint64_t a = alignment_of(p->layout->map, s);

	if (p->placed[i])
		return;
	p->at = (p->at + a - 1) / a * a;
	p->layout->address[i] = p->at;
	p->layout->moved[i] = true;
	p->placed[i] = true;
	p->at += s->size;
}

/* The script's hot end: what every start-up or exit runs and no order names. */
static void place_fini(struct placing *p)
{
	const struct ldmap *m = &p->layout->map->map;
	size_t i;

	for (i = 0; i < m->count; i++)
		if (!strcmp(m->sections[i].output, ".fini"))
			place(p, i);
}

size_t layout_map_index(const struct layout *layout, const struct unit_section *us)
{
	char *key = unit_section_key(us->unit, us->section);
	void *slot = strmap_get(&layout->index, key);

	free(key);
	return slot ? (size_t)(uintptr_t)slot - 1 : SIZE_MAX;
}

/* The order's entries [from, to) that go to output, placed in turn. */
static void place_entries(struct placing *p, const struct unit_section *order, size_t from, size_t to,
			  const char *output)
{
	size_t k, i;

	for (k = from; k < to; k++) {
		const char *out;

		if (!order[k].section)
			continue;
		out = emit_output_section(order[k].unit->elf.sections[order[k].section].name);
		if (out && !strcmp(out, output) && (i = layout_map_index(p->layout, &order[k])) != SIZE_MAX)
			place(p, i);
	}
}

/* The map's sections of output not placed yet, in the map's order. */
static void place_rest(struct placing *p, const char *output)
{
	const struct ldmap *m = &p->layout->map->map;
	size_t i;

	for (i = 0; i < m->count; i++)
		if (!strcmp(m->sections[i].output, output))
			place(p, i);
}

/* An output section the script orders: the order's entries of it where
   the placement puts them, then the others in the map's order (the
   default patterns after the script's list). */
static void place_ordered(struct placing *p, const struct unit_section *order, size_t count, size_t hot_count,
			  const struct layout_placement *placement, const char *output)
{
	bool text = !strcmp(output, ".text");
	size_t head_end = placement && placement->head_end < hot_count ? placement->head_end : hot_count;

	if (text && head_end < hot_count) {
		place_entries(p, order, 0, head_end, output);
		place_entries(p, order, hot_count, count, output);
		place_entries(p, order, head_end, hot_count, output);
		place_fini(p);
	} else if (!text && placement && placement->rodata == ORDERING_RODATA_LAST && !strcmp(output, ".rodata")) {
		place_entries(p, order, hot_count, count, output);
		place_entries(p, order, 0, hot_count, output);
	} else {
		place_entries(p, order, 0, hot_count, output);
		if (text)
			place_fini(p);
		place_entries(p, order, hot_count, count, output);
	}
	place_rest(p, output);
}

/* The output sections of the read-only data segment, in the default
   script's order; of them, the unwinding tables, which a placement moves
   before .rodata (ORDERING_RODATA_LAST) or after the data segment
   (ORDERING_RODATA_APART). */
static const char *const rodata_segment[] = { ".rodata", ".rodata1", ".eh_frame_hdr", ".eh_frame", ".sframe",
					      ".gcc_except_table", ".gnu_extab", ".exception_ranges", NULL };
static const char *const unwinding_tables[] = { ".eh_frame_hdr", ".eh_frame", ".sframe", ".gcc_except_table",
						".gnu_extab", ".exception_ranges", NULL };

static bool in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/* The map's sections [*first, *end) of the read-only data segment: those
   of rodata_segment in one run of addresses from .rodata's first on;
   false without .rodata. */
static bool rodata_run(const struct ldmap *m, size_t *first, size_t *end)
{
	size_t i;

	for (i = 0; i < m->count; i++)
		if (!strcmp(m->sections[i].output, ".rodata"))
			break;
	if (i == m->count)
		return false;
	*first = i;
	for (*end = i; *end < m->count && in_list(rodata_segment, m->sections[*end].output); (*end)++)
		;
	return true;
}

/* Aligns p->at to the most aligned of output's sections in [first, end):
   the output section's own alignment. */
static void align_output(struct placing *p, const char *output, size_t first, size_t end)
{
	const struct ldmap *m = &p->layout->map->map;
	uint64_t a = 1;
	size_t i;

	for (i = first; i < end; i++)
		if (!strcmp(m->sections[i].output, output) && alignment_of(p->layout->map, &m->sections[i]) > a)
			a = alignment_of(p->layout->map, &m->sections[i]);
	p->at = (p->at + a - 1) / a * a;
}

/* The unwinding tables of the run [first, end), in their order, from p->at. */
static void place_unwinding_tables(struct placing *p, size_t first, size_t end)
{
	int o;

	for (o = 0; unwinding_tables[o]; o++) {
		align_output(p, unwinding_tables[o], first, end);
		place_rest(p, unwinding_tables[o]);
	}
}

/* ORDERING_RODATA_LAST: the unwinding tables first in the read-only data
   segment, then .rodata, its traced sections last, and .rodata1. */
static void place_rodata_last(struct placing *p, const struct unit_section *order, size_t count, size_t hot_count,
			      const struct layout_placement *placement)
{
	const struct ldmap *m = &p->layout->map->map;
	size_t first, end;

	if (!rodata_run(m, &first, &end))
		return;
	p->at = m->sections[first].address;
	place_unwinding_tables(p, first, end);
	align_output(p, ".rodata", first, end);
	place_ordered(p, order, count, hot_count, placement, ".rodata");
	align_output(p, ".rodata1", first, end);
	place_rest(p, ".rodata1");
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* The smallest file offset from at on that is address's offset in a page:
   where GNU ld puts a segment of that address after a segment that ends
   at the file offset at. */
static uint64_t offset_for(uint64_t at, uint64_t address)
{
	uint64_t offset = at / PAGE * PAGE + address % PAGE;

	return offset < at ? offset + PAGE : offset;
}

/* The traced link's read-only data segment (the load segment holding
   address) and its data segment (the one writable load segment, the
   last): false unless file has both so. */
static bool rodata_and_data(const struct coldstart_file *file, uint64_t address, const struct elf_segment **rodata,
			    const struct elf_segment **data)
{
	size_t i, writable = 0;

	*rodata = *data = NULL;
	for (i = 0; file && i < file->segment_count; i++) {
		const struct elf_segment *s = &file->segments[i];

		if (s->type != PT_LOAD)
			continue;
		if (*data)
			return false; /* a load segment after the data segment */
		if (s->flags & PF_W) {
			*data = s;
			writable++;
		} else if (address >= s->address && address < s->address + s->memory_size && !(s->flags & PF_X)) {
			*rodata = s;
		}
	}
	return *rodata && *data && writable == 1;
}

/* ORDERING_RODATA_APART: the traced .rodata and .rodata1 alone in the
   read-only data segment; the data segment moved to where
   DATA_SEGMENT_ALIGN puts it after that (the next page, at its offset in
   a page, which its RELRO part keeps); after the data segment's end, at
   the script's ldata-segment point, the untraced .rodata
   (.rodata.untraced) and the unwinding tables.  False when the traced
   link's segments are not so laid out: nothing placed then. */
static bool place_rodata_apart(struct placing *p, const struct unit_section *order, size_t count, size_t hot_count,
			       const struct coldstart_file *file)
{
	struct layout *l = p->layout;
	const struct ldmap *m = &l->map->map;
	const struct elf_segment *rodata, *data;
	size_t first, end;
	uint64_t data_address, data_end, end_8;

	if (!rodata_run(m, &first, &end) || !rodata_and_data(file, m->sections[first].address, &rodata, &data))
		return false;
	p->at = m->sections[first].address;
	place_entries(p, order, 0, hot_count, ".rodata");
	align_output(p, ".rodata1", first, end);
	place_rest(p, ".rodata1");
	l->rodata_segment = rodata->address;
	l->rodata_end = p->at;
	data_address = align_up(l->rodata_end, PAGE) + data->address % PAGE;
	l->data_start = data->address;
	l->data_end = data->address + data->memory_size;
	l->data_shift = data_address - data->address;
	l->data_offset = offset_for(l->rodata_end - rodata->address + rodata->offset, data_address);
	data_end = data_address + data->memory_size;
	end_8 = align_up(data_end, 8);
	l->untraced_start = align_up(end_8, PAGE) + end_8 % PAGE;
	l->untraced_offset = offset_for(l->data_offset + data->file_size, l->untraced_start);
	p->at = l->untraced_start;
	place_entries(p, order, hot_count, count, ".rodata");
	place_rest(p, ".rodata");
	place_unwinding_tables(p, first, end);
	l->untraced_end = p->at;
	l->apart = true;
	return true;
}

void layout_compute(struct layout *layout, const struct hot_map *map, const struct unit_section *order, size_t count,
		    size_t hot_count, const struct layout_placement *placement, const struct coldstart_file *file)
{
	static const char *const outputs[] = { ".text", ".rodata", ".data.rel.ro", ".data", ".bss", NULL };
	const struct ldmap *m = &map->map;
	struct placing p = { layout, xcalloc(m->count ? m->count : 1, sizeof(bool)), 0 };
	enum ordering_rodata rodata = placement ? placement->rodata : ORDERING_RODATA_FIRST;
	size_t i;
	int o;

	memset(layout, 0, sizeof(*layout));
	layout->map = map;
	layout->address = xmalloc((m->count ? m->count : 1) * sizeof(*layout->address));
	layout->moved = xcalloc(m->count ? m->count : 1, sizeof(bool));
	for (i = 0; i < m->count; i++) {
		struct unit_section us;

		layout->address[i] = m->sections[i].address;
		if (section_of(map, &m->sections[i], &us)) {
			char *key = unit_section_key(us.unit, us.section);
			void **slot = strmap_slot(&layout->index, key);

			if (*slot)
				free(key);
			else
				*slot = (void *)(uintptr_t)(i + 1);
		}
	}
	if (rodata == ORDERING_RODATA_APART && !place_rodata_apart(&p, order, count, hot_count, file))
		rodata = ORDERING_RODATA_LAST;
	if (rodata == ORDERING_RODATA_LAST)
		place_rodata_last(&p, order, count, hot_count, placement);
	for (o = 0; outputs[o]; o++) {
		uint64_t start = UINT64_MAX;

		for (i = 0; i < m->count; i++)
			if (!strcmp(m->sections[i].output, outputs[o]) && m->sections[i].address < start)
				start = m->sections[i].address;
		if (start == UINT64_MAX || (rodata != ORDERING_RODATA_FIRST && !strcmp(outputs[o], ".rodata")))
			continue;
		p.at = start;
		place_ordered(&p, order, count, hot_count, placement, outputs[o]);
	}
	/* the data segment moves whole, what the order does not move in it too */
	for (i = 0; layout->apart && i < m->count; i++)
		if (m->sections[i].address >= layout->data_start && m->sections[i].address < layout->data_end)
			layout->address[i] += layout->data_shift;
	free(p.placed);
}

uint64_t layout_address(const struct layout *layout, uint64_t address)
{
	const struct ldmap_section *s = ldmap_find(&layout->map->map, address);

	if (s)
		return layout->address[s - layout->map->map.sections] + (address - s->address);
	return layout_in_segment(layout, address);
}

uint64_t layout_in_segment(const struct layout *layout, uint64_t address)
{
	/* a touch of the data segment's first page may name the page's start */
	if (layout->apart && address >= layout->data_start / PAGE * PAGE && address < layout->data_end)
		return address + layout->data_shift;
	return address;
}

void layout_file(const struct layout *layout, const struct coldstart_file *file, struct coldstart_file *out)
{
	size_t i, n = 0, extra = layout->apart;
	uint64_t old_end = 0, new_end = 0;

	*out = *file;
	out->segments = xmalloc((file->segment_count + extra) * sizeof(*out->segments));
	for (i = 0; i < file->segment_count; i++) {
		struct elf_segment s = file->segments[i];

		if (layout->apart && s.type == PT_LOAD && s.address == layout->rodata_segment) {
			s.file_size = s.memory_size = layout->rodata_end - s.address;
		} else if (layout->apart && s.type == PT_LOAD && (s.flags & PF_W)) {
			old_end = s.offset + s.file_size;
			s.address += layout->data_shift;
			s.offset = layout->data_offset;
			out->segments[n++] = s;
			s = (struct elf_segment){ PT_LOAD, PF_R, layout->untraced_offset, layout->untraced_start,
						  layout->untraced_end - layout->untraced_start,
						  layout->untraced_end - layout->untraced_start };
			new_end = s.offset + s.file_size;
		}
		out->segments[n++] = s;
	}
	out->segment_count = n;
	if (extra && file->segment_count)
		out->table_size += file->table_size / file->segment_count;
	/* what follows the loaded part of the file (debugging information, the
	   symbol table) follows it still */
	if (new_end > old_end)
		out->size += new_end - old_end;
}

void layout_free(struct layout *layout)
{
	size_t i;

	for (i = 0; i < layout->index.capacity; i++)
		free((char *)layout->index.slots[i].key);
	strmap_free(&layout->index);
	free(layout->address);
	free(layout->moved);
	memset(layout, 0, sizeof(*layout));
}
