/* layout: where an order puts every input section of the traced link,
   predicted from the link's map without relinking, as the GNU ld script
   deporder emits lays them out: in .text, .rodata, .data.rel.ro, .data and
   .bss, the order's sections first, in its order, then the others in the
   map's order, each at its object's alignment, from where the output
   section began; .fini right after the order's traced .text sections, as
   the script puts it; every other output section where it was.  A
   placement for a cold start (struct layout_placement) moves the traced
   .text sections after the head part to the end of .text (then .fini),
   and may put the unwinding tables (.eh_frame_hdr, .eh_frame...) at the
   start of the read-only data segment, .rodata after them with its traced
   sections last.  An output section that grows or shrinks by alignment
   padding is taken to leave the segments where they were. */
#ifndef DEPORDER_LAYOUT_H
#define DEPORDER_LAYOUT_H

#include "hot.h"

/* Where the traced sections of an order go (the GNU ld script's form). */
struct layout_placement {
	size_t head_end;            /* the order's traced .text sections before this entry go to
				       the head of .text, those from it on to its end, after the
				       untraced ones; at least the traced count: all at the head */
	bool rodata_last;           /* unwinding tables first in the read-only data segment, then
				       .rodata, its traced sections last */
};

struct layout {
	const struct hot_map *map;
	uint64_t *address;          /* per map section: its address under the order */
	bool *moved;                /* per map section: its output section is reordered */
	struct strmap index;        /* unit_section_key -> 1 + its map section */
};

/* Lays out the map's sections under order (count entries, the first
   hot_count of them the traced ones, as order_compute gives them), placed
   as placement says (NULL: all the traced sections at the head of their
   output sections, the unwinding tables after .rodata). */
void layout_compute(struct layout *layout, const struct hot_map *map, const struct unit_section *order, size_t count,
		    size_t hot_count, const struct layout_placement *placement);

/* Where the byte at address of the traced link lands under the order
   (the same address outside the input sections the map lists). */
uint64_t layout_address(const struct layout *layout, uint64_t address);

/* The map section that is us, or SIZE_MAX. */
size_t layout_map_index(const struct layout *layout, const struct unit_section *us);

/* Frees what layout_compute allocated. */
void layout_free(struct layout *layout);

#endif
