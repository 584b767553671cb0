/* evaluate: --evaluate: what an order would do to the code pages each
   trace touches and to the file pages a cold start reads, without
   relinking. */
#ifndef DEPORDER_EVALUATE_H
#define DEPORDER_EVALUATE_H

#include "coldstart.h"
#include "hot.h"
#include "layout.h"

/* One row of --evaluate, for --stats-json. */
struct evaluate_row {
	char *trace;
	size_t pages_now, pages_ordered, windows_now, windows_ordered;
	bool cold;                 /* the cold-start figures below are known */
	uint64_t read_now, read_ordered, requests_now, requests_ordered;
};

struct evaluate_rows {
	struct evaluate_row *rows;
	size_t count, capacity;
};

/* evaluate_traces also records its rows into rows (NULL: not). */
void evaluate_record_rows(struct evaluate_rows *rows);

/* Prints, for each trace that records pages, the code pages it touched in
   the traced link and those it would touch in the link of order
   (order_count entries, as order_compute gives them from hot, the first
   hot_count of them traced, placed as placement says: layout.h), the 64
   KiB fault-around windows of each, and the file pages and read requests
   of a cold start with read_ahead_kb of read-ahead, of the traced link and
   of the link of order, as the readahead model replays the trace
   (coldstart.h).  The traces and the map are those hot_from_traces used;
   the link's relocations are loaded. */
void evaluate_traces(const struct hot_order *hot, struct link *link, const struct hot_inputs *in,
		     const struct unit_section *order, size_t order_count, size_t hot_count,
		     const struct layout_placement *placement, uint64_t page_size, unsigned long read_ahead_kb);

/* The file pages and read requests of a cold start of run's traced object
   (its page size 4096) with read_ahead_kb of read-ahead: *now as the trace
   touched file's pages, *ordered with each touch moved where layout puts
   what it touched, in the order the run made them.  hot and link as for
   evaluate_traces. */
void evaluate_cold_start(const struct traced_run *run, const struct layout *layout, const struct hot_order *hot,
			 struct link *link, const struct coldstart_file *file, unsigned long read_ahead_kb,
			 struct coldstart_reads *now, struct coldstart_reads *ordered);

#endif
