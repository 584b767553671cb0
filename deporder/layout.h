/* layout: where an order puts every input section of the traced link,
   predicted from the link's map without relinking, as the GNU ld script
   deporder emits lays them out: in .text, .rodata, .data.rel.ro, .data and
   .bss, the order's sections first, in its order, then the others in the
   map's order, each at its object's alignment, from where the output
   section began; .fini right after the order's traced .text sections, as
   the script puts it; every other output section where it was.  A
   placement for a cold start (struct layout_placement) moves the traced
   .text sections after the head part to the end of .text (then .fini);
   and either puts the unwinding tables (.eh_frame_hdr, .eh_frame...) at
   the start of the read-only data segment, .rodata after them with its
   traced sections last, or leaves the traced .rodata alone in that
   segment, the data segment after it moved down to where GNU ld's
   DATA_SEGMENT_ALIGN then puts it, and the untraced .rodata and the
   unwinding tables in a new read-only segment after the data segment
   (where x86-64's default script puts .lrodata).  An output section that
   grows or shrinks by alignment padding is taken to leave the segments
   where they were. */
#ifndef DEPORDER_LAYOUT_H
#define DEPORDER_LAYOUT_H

#include "coldstart.h"
#include "hot.h"

/* Where the traced sections of an order go (the GNU ld script's form). */
struct layout_placement {
	size_t head_end;            /* the order's traced .text sections before this entry go to
				       the head of .text, those from it on to its end, after the
				       untraced ones; at least the traced count: all at the head */
	enum ordering_rodata rodata; /* where the traced .rodata goes (lib/ordering.h) */
};

struct layout {
	const struct hot_map *map;
	uint64_t *address;          /* per map section: its address under the order */
	bool *moved;                /* per map section: its output section is reordered */
	struct strmap index;        /* unit_section_key -> 1 + its map section */
	/* ORDERING_RODATA_APART: the data segment [data_start, data_end) of the
	   traced link moves by data_shift; the segments' new geometry */
	bool apart;
	uint64_t data_start, data_end, data_shift;
	uint64_t rodata_segment;    /* the read-only data segment's address */
	uint64_t rodata_end;        /* its end */
	uint64_t data_offset;       /* the data segment's new file offset */
	uint64_t untraced_start, untraced_end, untraced_offset; /* the segment after it */
};

/* Lays out the map's sections under order (count entries, the first
   hot_count of them the traced ones, as order_compute gives them), placed
   as placement says (NULL: all the traced sections at the head of their
   output sections, the unwinding tables after .rodata); file: the traced
   link's program headers, which ORDERING_RODATA_APART needs (without
   them, or when they are not GNU ld's read-only, code, read-only data
   and data segments, it is laid out as ORDERING_RODATA_LAST). */
void layout_compute(struct layout *layout, const struct hot_map *map, const struct unit_section *order, size_t count,
		    size_t hot_count, const struct layout_placement *placement, const struct coldstart_file *file);

/* Where the byte at address of the traced link lands under the order
   (outside the input sections the map lists: where its segment moves). */
uint64_t layout_address(const struct layout *layout, uint64_t address);

/* Where the byte at address of the traced link lands if what holds it
   stays where it was in its segment (the linker's own sections). */
uint64_t layout_in_segment(const struct layout *layout, uint64_t address);

/* The program headers of the link under the order: file's, with the
   segments ORDERING_RODATA_APART changes and adds (a new copy in *out;
   free it with coldstart_file_free). */
void layout_file(const struct layout *layout, const struct coldstart_file *file, struct coldstart_file *out);

/* The map section that is us, or SIZE_MAX. */
size_t layout_map_index(const struct layout *layout, const struct unit_section *us);

/* Frees what layout_compute allocated. */
void layout_free(struct layout *layout);

#endif
