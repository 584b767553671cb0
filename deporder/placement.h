/* placement: where an order puts its traced sections for a cold start
   (layout.h's struct layout_placement), chosen with --evaluate's model of
   the kernel's reads: how many pages of the traced code stay at the head
   of .text, where the reads of the headers and relocations at execve
   and in ld.so run on into the code, the rest going to the end of .text,
   where reads forward from a fault stop at the segment's end; and
   where the traced .rodata goes (lib/ordering.h: first in .rodata, last
   next to the data segment, or alone before the data segment, the rest
   after it). */
#ifndef DEPORDER_PLACEMENT_H
#define DEPORDER_PLACEMENT_H

#include "evaluate.h"
#include "layout.h"

struct placement_choice {
	struct layout_placement placement;
	uint64_t head_bytes;            /* of the traced code, at the head of .text */
	uint64_t tail_bytes;            /* of the traced code, at its end */
	uint64_t pages, requests;       /* the predicted cold start, summed over the traces */
	uint64_t head_pages, head_requests; /* the same with the traced sections at the heads */
	size_t candidates;              /* placements compared */
};

/* Compares the placements of order (its placement ignored) by the file
   pages that the cold starts of ctx's traces (those with 4 KiB page
   records) read at ctx's read-ahead, as evaluate_cold_start predicts them
   from the program headers of the traced binary: every split of the traced code at
   a page boundary of where the head placement puts it, the traced
   entries after the split packed (pack.h) from where they start at the
   end of .text, each with the traced .rodata first, last, and (when
   rodata_apart: the linker's script can) apart, packed for ctx's page
   size.  The fewest pages wins; then the fewest requests; then the most
   code at the head.  Rewrites order's traced entries as the chosen
   placement has them and fills *choice.  Returns 0, or EXIT_INPUT after
   saying why no prediction can be made. */
int placement_choose(const struct evaluate_context *ctx, const struct laid_order *order, bool rodata_apart,
		     struct placement_choice *choice);

#endif
