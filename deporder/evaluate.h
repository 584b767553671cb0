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

/* What an order is judged against: the link, its traced order hot, and
   the traces and map hot_from_traces used (the link's relocations
   loaded); the page size the order is packed for; the disk's read-ahead
   the cold start is predicted at. */
struct evaluate_context {
	const struct hot_order *hot;
	struct link *link;
	const struct hot_inputs *in;
	uint64_t page_size;
	unsigned long read_ahead_kb;
};

/* An order as order_compute gives it from hot: count entries, the first
   hot_count of them traced, placed as placement says (layout.h; NULL:
   the traced sections at the heads of their output sections). */
struct laid_order {
	struct unit_section *entries;
	size_t count, hot_count;
	const struct layout_placement *placement;
};

/* Prints, for each trace of ctx that records pages, the code pages it
   touched in the traced link and those it would touch in the link of
   order, the 64 KiB fault-around windows of each, and the file pages and
   read requests of a cold start at ctx's read-ahead, of the traced link
   and of the link of order, as the readahead model replays the trace
   (coldstart.h). */
void evaluate_traces(const struct evaluate_context *ctx, const struct laid_order *order);

/* The file pages and read requests of a cold start of run's traced object
   (its page size 4096) at ctx's read-ahead: *now as the trace touched
   file's pages, *ordered with each touch moved where layout puts what it
   touched, in the order the run made them. */
void evaluate_cold_start(const struct evaluate_context *ctx, const struct traced_run *run, const struct layout *layout,
			 const struct coldstart_file *file, struct coldstart_reads *now, struct coldstart_reads *ordered);

#endif
