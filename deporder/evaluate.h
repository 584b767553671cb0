/* evaluate: --evaluate: what an order would do to the code pages each
   trace touches and to the file pages a cold start reads, without
   relinking. */
#ifndef DEPORDER_EVALUATE_H
#define DEPORDER_EVALUATE_H

#include "hot.h"

/* Prints, for each trace that records pages, the code pages it touched in
   the traced link and those it would touch with hot's sections laid out in
   order from where .text began, the 64 KiB fault-around windows of each,
   and the file pages and read requests of a cold start with read_ahead_kb
   of read-ahead, of the traced link and of the link of order (order_count
   entries, as order_compute gives them from hot), as the readahead model
   replays the trace (coldstart.h, layout.h).  The traces and the map are
   those hot_from_traces used; the link's relocations are loaded. */
void evaluate_traces(const struct hot_order *hot, struct link *link, const struct hot_inputs *in,
		     const struct unit_section *order, size_t order_count, uint64_t page_size,
		     unsigned long read_ahead_kb);

#endif
