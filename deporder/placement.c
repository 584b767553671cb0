#include "placement.h"
#include "coldstart.h"
#include "evaluate.h"
#include "pack.h"

#include <stdlib.h>
#include <string.h>

#define PAGE 4096

/* What every candidate is judged against. */
struct judge {
	const struct evaluate_context *ctx;
	const struct hot_inputs *in;
	struct coldstart_file file;
	size_t count, hot_count;
};

/* The cold starts of the traces under order placed so: pages and
   requests summed over the traces; false when the traced link's segments
   do not allow the placement (.rodata apart). */
static bool predict(const struct judge *j, const struct unit_section *order, const struct layout_placement *placement,
		    uint64_t *pages, uint64_t *requests)
{
	struct layout layout;
	size_t t;

	layout_compute(&layout, &j->in->map, order, j->count, j->hot_count, placement, &j->file);
	if (placement && placement->rodata == ORDERING_RODATA_APART && !layout.apart) {
		layout_free(&layout);
		return false;
	}
	*pages = *requests = 0;
	for (t = 0; t < j->in->count; t++) {
		const struct traced_run *run = &j->in->runs[t];
		struct coldstart_reads now, ordered;

		if (!run->object || run->trace.page_size != PAGE)
			continue;
		evaluate_cold_start(j->ctx, run, &layout, &j->file, &now, &ordered);
		*pages += ordered.pages;
		*requests += ordered.requests;
	}
	layout_free(&layout);
	return true;
}

/* Where the order's traced code entry k is under layout, or UINT64_MAX
   (not code, or not in the map). */
static uint64_t code_address(const struct layout *layout, const struct unit_section *us)
{
	size_t i;

	if (!hot_bound_for_text(us) || (i = layout_map_index(layout, us)) == SIZE_MAX)
		return UINT64_MAX;
	return layout->address[i];
}

/* order with its traced code split before entry head_end: the entries
   from head_end to hot_count packed from where the split puts the first
   of them (a new array). */
static struct unit_section *split(const struct judge *j, const struct unit_section *order, size_t head_end,
				  uint64_t page_size)
{
	struct unit_section *candidate = xmalloc(j->count * sizeof(*candidate));
	struct layout_placement placement = { head_end, ORDERING_RODATA_FIRST };
	struct layout layout;
	uint64_t start = UINT64_MAX;
	size_t k;

	memcpy(candidate, order, j->count * sizeof(*candidate));
	layout_compute(&layout, &j->in->map, candidate, j->count, j->hot_count, &placement, &j->file);
	for (k = head_end; k < j->hot_count; k++) {
		uint64_t a = code_address(&layout, &candidate[k]);

		if (a < start)
			start = a;
	}
	layout_free(&layout);
	if (start != UINT64_MAX)
		pack_range(candidate + head_end, j->hot_count - head_end, start, page_size);
	return candidate;
}

/* Is (pages, requests, head) better than the best so far? */
static bool better(uint64_t pages, uint64_t requests, uint64_t head, const struct placement_choice *best)
{
	if (pages != best->pages)
		return pages < best->pages;
	if (requests != best->requests)
		return requests < best->requests;
	return head > best->head_bytes;
}

int placement_choose(const struct evaluate_context *ctx, const struct laid_order *laid, bool rodata_apart,
		     struct placement_choice *choice)
{
	struct unit_section *order = laid->entries;
	size_t count = laid->count;
	const struct hot_inputs *in = ctx->in;
	uint64_t page_size = ctx->page_size;
	struct judge j = { ctx, in, { 0 }, count, laid->hot_count < count ? laid->hot_count : count };
	struct unit_section *best_order = NULL;
	struct layout layout;
	uint64_t *at, first = UINT64_MAX, total = 0, pages, requests;
	size_t k, t, previous = SIZE_MAX, usable = 0;
	char *why;
	int side, sides = rodata_apart ? 3 : 2;

	memset(choice, 0, sizeof(*choice));
	for (t = 0; t < in->count; t++)
		usable += in->runs[t].object && in->runs[t].trace.page_size == PAGE;
	if (!usable) {
		error("--placement=cold-start needs a trace of the pages the program touched, of 4096 bytes (pagein's; "
		      "cygtrace's records functions alone)");
		return EXIT_INPUT;
	}
	if (coldstart_file_read(&j.file, in->binary_path, &why) < 0) {
		error("%s: cannot predict a cold start for --placement=cold-start: %s", in->binary_path, why);
		free(why);
		return EXIT_INPUT;
	}
	/* where the head placement puts the traced code, and how much of it there is */
	at = xmalloc((j.hot_count ? j.hot_count : 1) * sizeof(*at));
	layout_compute(&layout, &in->map, order, count, j.hot_count, NULL, &j.file);
	for (k = 0; k < j.hot_count; k++) {
		at[k] = code_address(&layout, &order[k]);
		if (at[k] == UINT64_MAX)
			continue;
		if (at[k] < first)
			first = at[k];
		total += order[k].unit->elf.sections[order[k].section].size;
	}
	layout_free(&layout);

	predict(&j, order, NULL, &choice->head_pages, &choice->head_requests);
	choice->placement = (struct layout_placement){ j.hot_count, ORDERING_RODATA_FIRST };
	choice->pages = choice->head_pages;
	choice->requests = choice->head_requests;
	choice->head_bytes = total;
	choice->candidates = 1;
	/* split before the first traced code entry on each page of the head
	   placement's traced code; hot_count: all of it at the head */
	for (k = 0; first != UINT64_MAX && k <= j.hot_count; k++) {
		struct unit_section *candidate;
		uint64_t head = 0;
		size_t i;

		if (k < j.hot_count && (at[k] == UINT64_MAX || (previous != SIZE_MAX && at[k] / PAGE == at[previous] / PAGE)))
			continue;
		if (k < j.hot_count)
			previous = k;
		for (i = 0; i < k && i < j.hot_count; i++)
			if (at[i] != UINT64_MAX)
				head += order[i].unit->elf.sections[order[i].section].size;
		candidate = k < j.hot_count ? split(&j, order, k, page_size) : NULL;
		for (side = 0; side < sides; side++) {
			struct layout_placement placement = { k, (enum ordering_rodata)side };

			if (k == j.hot_count && !side)
				continue; /* the head placement, predicted above */
			if (!predict(&j, candidate ? candidate : order, &placement, &pages, &requests))
				continue;
			choice->candidates++;
			if (!better(pages, requests, head, choice))
				continue;
			choice->placement = placement;
			choice->pages = pages;
			choice->requests = requests;
			choice->head_bytes = head;
			free(best_order);
			best_order = xmalloc(count * sizeof(*best_order));
			memcpy(best_order, candidate ? candidate : order, count * sizeof(*best_order));
		}
		free(candidate);
	}
	choice->tail_bytes = total - choice->head_bytes;
	if (best_order)
		memcpy(order, best_order, count * sizeof(*order));
	free(best_order);
	free(at);
	coldstart_file_free(&j.file);
	return 0;
}
