#include "readahead.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define NO_FOLIO UINT64_MAX
#define FAULT_AROUND_PAGES 16   /* fault_around_bytes: 64 KiB */
#define PTRS_PER_PTE 512        /* fault-around stays inside one page table */
#define MMAP_LOTSAMISS 100
#define MAX_FOLIO_ORDER 9       /* MAX_PAGECACHE_ORDER on x86-64: a PMD */
#define XA_CHUNK 64             /* slots of an xarray node */

struct readahead {
	uint64_t pages;             /* of the file */
	unsigned long ra_pages;
	uint64_t *folio;            /* per page: the first page of its folio, or NO_FOLIO */
	unsigned char *order;       /* per folio's first page: its order */
	bool *marked;               /* per folio's first page: PG_readahead */
	struct readahead_vma *vmas;
	bool **mapped;              /* per vma, per page it maps: mapped there */
	size_t vma_count;
	/* the file's struct file_ra_state */
	uint64_t start, size, async_size;
	unsigned int folio_order;
	int64_t prev_pos;
	unsigned int mmap_miss;
	uint64_t batch;             /* pages read_pages would submit now */
	uint64_t batch_first;       /* the first of them */
	enum readahead_cause cause; /* what the pages read now are read for */
	uint64_t cause_page;
	struct readahead_request *log;
	size_t log_count, log_capacity;
	uint64_t pages_read, requests;
};

struct readahead *readahead_new(uint64_t file_pages, unsigned long read_ahead_pages, const struct readahead_vma *vmas,
				size_t vma_count)
{
	struct readahead *ra = xcalloc(1, sizeof(*ra));
	uint64_t p;
	size_t v;

	ra->pages = file_pages;
	ra->ra_pages = read_ahead_pages;
	ra->folio = xmalloc((file_pages ? file_pages : 1) * sizeof(*ra->folio));
	for (p = 0; p < file_pages; p++)
		ra->folio[p] = NO_FOLIO;
	ra->order = xcalloc(file_pages ? file_pages : 1, 1);
	ra->marked = xcalloc(file_pages ? file_pages : 1, sizeof(bool));
	ra->vma_count = vma_count;
	ra->vmas = xcalloc(vma_count ? vma_count : 1, sizeof(*ra->vmas));
	ra->mapped = xcalloc(vma_count ? vma_count : 1, sizeof(*ra->mapped));
	for (v = 0; v < vma_count; v++) {
		ra->vmas[v] = vmas[v];
		ra->mapped[v] = xcalloc(vmas[v].pages ? vmas[v].pages : 1, sizeof(bool));
	}
	ra->prev_pos = -1;
	return ra;
}

void readahead_free(struct readahead *ra)
{
	size_t v;

	if (!ra)
		return;
	for (v = 0; v < ra->vma_count; v++)
		free(ra->mapped[v]);
	free(ra->mapped);
	free(ra->vmas);
	free(ra->folio);
	free(ra->order);
	free(ra->marked);
	free(ra->log);
	free(ra);
}

static bool present(const struct readahead *ra, uint64_t page)
{
	return page < ra->pages && ra->folio[page] != NO_FOLIO;
}

static unsigned int floor_log2(uint64_t v)
{
	unsigned int n = 0;

	while (v >>= 1)
		n++;
	return n;
}

static unsigned int trailing_zeros(uint64_t v)
{
	unsigned int n = 0;

	if (!v)
		return 64;
	while (!(v & 1)) {
		v >>= 1;
		n++;
	}
	return n;
}

/* read_pages: the pages gathered since the last call go out as one request. */
static void read_pages(struct readahead *ra)
{
	if (!ra->batch)
		return;
	ra->requests++;
	ra->pages_read += ra->batch;
	*ARRAY_PUSH(ra->log, ra->log_count, ra->log_capacity) =
		(struct readahead_request){ ra->batch_first, ra->batch, ra->cause, ra->cause_page };
	ra->batch = 0;
}

/* filemap_add_folio: fails when any page of the folio is cached already. */
static bool add_folio(struct readahead *ra, uint64_t index, unsigned int order, bool mark)
{
	uint64_t n = (uint64_t)1 << order, q;

	for (q = index; q < index + n; q++)
		if (q >= ra->pages || ra->folio[q] != NO_FOLIO)
			return false;
	if (!ra->batch)
		ra->batch_first = index;
	for (q = index; q < index + n; q++)
		ra->folio[q] = index;
	ra->order[index] = order;
	ra->marked[index] = mark;
	ra->batch += n;
	return true;
}

/* page_cache_ra_unbounded: single pages over [index, index + count),
   skipping those cached, the one lookahead pages before the end marked. */
static void read_unbounded(struct readahead *ra, uint64_t index, uint64_t count, uint64_t lookahead)
{
	uint64_t mark = lookahead <= count ? count - lookahead : UINT64_MAX, i;

	for (i = 0; i < count; i++) {
		if (present(ra, index + i)) {
			read_pages(ra);
			continue;
		}
		add_folio(ra, index + i, 0, i == mark);
	}
	read_pages(ra);
}

/* do_page_cache_ra: read_unbounded, not past the end of the file. */
static void read_chunk(struct readahead *ra, uint64_t index, uint64_t count, uint64_t lookahead)
{
	if (!ra->pages || index > ra->pages - 1)
		return;
	if (count > ra->pages - 1 - index)
		count = ra->pages - index;
	read_unbounded(ra, index, count, lookahead);
}

/* page_cache_ra_order: the window [start, start + size) in folios of the
   window's order, aligned; at the first page already cached, the rest of
   it page by page. */
static void read_window(struct readahead *ra)
{
	uint64_t start = ra->start, index = start, limit, mark;
	unsigned int new_order;
	bool failed = false;

	if (!ra->pages || !ra->size || start > ra->pages - 1)
		return;
	limit = ra->pages - 1;
	if (start + ra->size - 1 < limit)
		limit = start + ra->size - 1;
	mark = start + ra->size - ra->async_size;
	new_order = ra->folio_order < MAX_FOLIO_ORDER ? ra->folio_order : MAX_FOLIO_ORDER;
	if (new_order > floor_log2(ra->size))
		new_order = floor_log2(ra->size);
	ra->folio_order = new_order;
	while (index <= limit) {
		unsigned int order = new_order;

		if (index & (((uint64_t)1 << order) - 1))
			order = trailing_zeros(index);
		while (order > 0 && index + ((uint64_t)1 << order) - 1 > limit)
			order--;
		if (!add_folio(ra, index, order, index == (mark & ~(((uint64_t)1 << order) - 1)))) {
			failed = true;
			break;
		}
		index += (uint64_t)1 << order;
	}
	read_pages(ra);
	if (failed && ra->size > index - start)
		read_chunk(ra, index, ra->size - (index - start), ra->async_size);
}

static uint64_t initial_size(uint64_t size, uint64_t max)
{
	uint64_t n = 1;

	while (n < size)
		n <<= 1;
	if (n <= max / 32)
		return n * 4;
	if (n <= max / 4)
		return n * 2;
	return max;
}

static uint64_t next_size(uint64_t cur, uint64_t max)
{
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

/* page_cache_prev_miss: the first page not cached going down from index
   (UINT64_MAX past page 0), or the last one looked at. */
static uint64_t prev_miss(const struct readahead *ra, uint64_t index, uint64_t max_scan)
{
	uint64_t n;

	for (n = 0; n < max_scan; n++) {
		if (!present(ra, index))
			return index;
		if (index == 0)
			return UINT64_MAX;
		index--;
	}
	return index + 1;
}

/* page_cache_next_miss as the xarray walks it.  Its first step loads
   index, and a multi-page folio there sends the walk to the folio's first
   slot (xas_descend); later steps (xas_next) move index and slot together,
   so the walk looks at slots behind the index it reports until it crosses
   into the next node of 64 slots, where it picks up at that index: it
   reports a miss further on than the first page missing. */
static uint64_t next_miss(const struct readahead *ra, uint64_t index, uint64_t max_scan)
{
	uint64_t first = index, node, slot, n, folio;

	if (!present(ra, index))
		return index;
	folio = ra->folio[index];
	node = index / XA_CHUNK;
	slot = folio / XA_CHUNK == node && ra->order[folio] < 6 ? folio % XA_CHUNK : index % XA_CHUNK;
	for (n = 1; n < max_scan; n++) {
		index++;
		if (slot == XA_CHUNK - 1) {
			node = index / XA_CHUNK;
			slot = index % XA_CHUNK;
		} else {
			slot++;
		}
		if (!present(ra, node * XA_CHUNK + slot))
			return index;
	}
	return first + max_scan;
}

/* page_cache_sync_ra, for read(2). */
static void sync_read_ahead(struct readahead *ra, uint64_t index, uint64_t count)
{
	uint64_t max = ra->ra_pages, prev_index, miss, contig;

	if (!ra->ra_pages) {
		read_chunk(ra, index, 1, 0);
		return;
	}
	if (count > max)
		max = count;
	prev_index = (uint64_t)ra->prev_pos >> 12;
	if (!index || count > ra->ra_pages || index - prev_index <= 1) {
		ra->start = index;
		ra->size = initial_size(count, max);
		ra->async_size = ra->size > count ? ra->size - count : ra->size >> 1;
	} else {
		miss = prev_miss(ra, index - 1, max);
		contig = index - miss - 1;
		if (contig <= count) {
			read_chunk(ra, index, count, 0);
			return;
		}
		if (miss == UINT64_MAX)
			contig *= 2;
		ra->start = index;
		ra->size = contig + count < max ? contig + count : max;
		ra->async_size = 1;
	}
	ra->folio_order = 0;
	read_window(ra);
}

/* page_cache_async_ra: a marked folio was reached at index. */
static void async_read_ahead(struct readahead *ra, uint64_t index, uint64_t folio, uint64_t count)
{
	uint64_t max = ra->ra_pages, expected, start, end, aligned_end, align;
	unsigned int shift;

	if (!ra->ra_pages)
		return;
	ra->marked[folio] = false;
	ra->cause = READAHEAD_MARKED;
	ra->cause_page = index;
	if (count > max)
		max = count;
	expected = (ra->start + ra->size - ra->async_size) & ~(((uint64_t)1 << ra->order[folio]) - 1);
	if (index == expected) {
		ra->start += ra->size;
		if (next_size(ra->size, max) > ra->size)
			ra->size = next_size(ra->size, max);
	} else {
		start = next_miss(ra, index + 1, max);
		if (!start || start - index > max)
			return;
		ra->start = start;
		ra->size = next_size(start - index + count, max);
	}
	ra->folio_order += 2;
	shift = trailing_zeros(max);
	align = (uint64_t)1 << (ra->folio_order < shift ? ra->folio_order : shift);
	end = ra->start + ra->size;
	aligned_end = end & ~(align - 1);
	if (aligned_end > ra->start)
		ra->size -= end - aligned_end;
	ra->async_size = ra->size;
	read_window(ra);
}

void readahead_read(struct readahead *ra, uint64_t offset, uint64_t count)
{
	uint64_t index = offset >> 12, last = (offset + count + 4095) >> 12;

	if (!count)
		return;
	if (last > ra->pages)
		last = ra->pages;
	while (index < last) {
		uint64_t folio = NO_FOLIO;

		ra->cause = READAHEAD_READ;
		ra->cause_page = index;
		if (!present(ra, index))
			sync_read_ahead(ra, index, last - index);
		if (!present(ra, index) && add_folio(ra, index, 0, false))
			read_pages(ra);
		/* filemap_get_read_batch: the batch ends at a marked folio */
		while (index < last && present(ra, index)) {
			folio = ra->folio[index];
			index = folio + ((uint64_t)1 << ra->order[folio]);
			if (ra->marked[folio])
				break;
		}
		if (folio != NO_FOLIO && ra->marked[folio])
			async_read_ahead(ra, folio, folio, last - folio);
	}
	ra->prev_pos = (int64_t)(offset + count);
}

void readahead_willneed(struct readahead *ra, uint64_t first, uint64_t count, uint64_t io_pages)
{
	uint64_t max = io_pages > ra->ra_pages ? io_pages : ra->ra_pages, chunk;

	ra->cause = READAHEAD_WILLNEED;
	ra->cause_page = first;
	if (count > max)
		count = max;
	while (count) {
		chunk = count < 512 ? count : 512; /* 2 MiB at a time */
		read_chunk(ra, first, chunk, 0);
		first += chunk;
		count -= chunk;
	}
}

/* filemap_map_pages over [first, last] of vma: maps the cached pages not
   marked; each counts as a hit against mmap_miss. */
static void map_pages(struct readahead *ra, size_t vma, uint64_t first, uint64_t last)
{
	const struct readahead_vma *v = &ra->vmas[vma];
	unsigned int hits = 0;
	uint64_t p;

	for (p = first; p <= last; p++) {
		if (!present(ra, p) || ra->marked[ra->folio[p]])
			continue;
		hits++;
		ra->mapped[vma][p - v->file_page] = true;
	}
	ra->mmap_miss = hits >= ra->mmap_miss ? 0 : ra->mmap_miss - hits;
}

/* do_fault_around: the 64 KiB of virtual addresses around the fault,
   inside the mapping and its page table. */
static void fault_around(struct readahead *ra, size_t vma, uint64_t page)
{
	const struct readahead_vma *v = &ra->vmas[vma];
	uint64_t vma_off = page - v->file_page, pte_off = (v->virtual_page + vma_off) % PTRS_PER_PTE;
	uint64_t from = pte_off / FAULT_AROUND_PAGES * FAULT_AROUND_PAGES, to;

	if (pte_off - (pte_off < vma_off ? pte_off : vma_off) > from)
		from = pte_off - (pte_off < vma_off ? pte_off : vma_off);
	to = from + FAULT_AROUND_PAGES;
	if (to > PTRS_PER_PTE)
		to = PTRS_PER_PTE;
	if (to > pte_off + v->pages - vma_off)
		to = pte_off + v->pages - vma_off;
	map_pages(ra, vma, page + from - pte_off, page + to - 1 - pte_off);
}

/* filemap_fault with do_sync_mmap_readahead and do_async_mmap_readahead;
   true when the kernel drops the mmap lock for I/O and retries the fault. */
static bool file_fault(struct readahead *ra, size_t vma, uint64_t page)
{
	const struct readahead_vma *v = &ra->vmas[vma];
	/* VM_RAND_READ: do_async_mmap_readahead returns on it, and
	   do_sync_mmap_readahead where its VM_EXEC case does not apply */
	bool random = v->random && !v->exec;

	if (present(ra, page)) {
		uint64_t folio = ra->folio[page];

		if (!ra->ra_pages || v->random)
			return false;
		if (ra->mmap_miss)
			ra->mmap_miss--;
		if (!ra->marked[folio])
			return false;
		async_read_ahead(ra, page, folio, ra->ra_pages);
		return true;
	}
	if (ra->ra_pages && !random) {
		if (ra->mmap_miss < MMAP_LOTSAMISS * 10)
			ra->mmap_miss++;
		if (ra->mmap_miss <= MMAP_LOTSAMISS) {
			ra->cause = v->exec ? READAHEAD_FAULT_CODE : READAHEAD_FAULT;
			ra->cause_page = page;
			if (v->exec) {
				/* code is read forward from the fault, inside its mapping */
				uint64_t end = page + ra->ra_pages;

				if (end > v->file_page + v->pages)
					end = v->file_page + v->pages;
				ra->start = page;
				ra->size = end - page;
				ra->async_size = 0;
			} else {
				ra->start = page > ra->ra_pages / 2 ? page - ra->ra_pages / 2 : 0;
				ra->size = ra->ra_pages;
				ra->async_size = ra->ra_pages / 4;
			}
			ra->folio_order = 0;
			read_window(ra);
		}
	}
	/* no read-ahead (or none that reached the page): the page alone */
	ra->cause = READAHEAD_ALONE;
	ra->cause_page = page;
	if (!present(ra, page) && add_folio(ra, page, 0, false))
		read_pages(ra);
	return true;
}

void readahead_touch(struct readahead *ra, size_t vma, uint64_t page, bool write)
{
	const struct readahead_vma *v;

	if (vma >= ra->vma_count)
		return;
	v = &ra->vmas[vma];
	if (page < v->file_page || page - v->file_page >= v->pages || ra->mapped[vma][page - v->file_page])
		return;
	if (!write) {
		fault_around(ra, vma, page);
		if (ra->mapped[vma][page - v->file_page])
			return;
	}
	/* the retry faults around again; a write to a private mapping copies
	   the page and maps nothing else */
	if (file_fault(ra, vma, page) && !write)
		fault_around(ra, vma, page);
	ra->mapped[vma][page - v->file_page] = true;
}

/* Appends to vmas/mapped the part [from, to) of vma v (virtual pages). */
static void push_part(struct readahead *ra, size_t v, uint64_t from, uint64_t to, struct readahead_vma **vmas,
		      bool ***mapped, size_t *count, size_t *capacity)
{
	const struct readahead_vma *old = &ra->vmas[v];
	struct readahead_vma part = { old->file_page + (from - old->virtual_page), to - from, from, old->exec,
				      old->random };
	bool *pages = xcalloc(to - from, sizeof(bool));

	memcpy(pages, ra->mapped[v] + (from - old->virtual_page), (to - from) * sizeof(bool));
	if (*count == *capacity) {
		*capacity = *capacity ? 2 * *capacity : 8;
		*vmas = xrealloc(*vmas, *capacity * sizeof(**vmas));
		*mapped = xrealloc(*mapped, *capacity * sizeof(**mapped));
	}
	(*vmas)[*count] = part;
	(*mapped)[(*count)++] = pages;
}

void readahead_cut(struct readahead *ra, uint64_t first, uint64_t pages, uint64_t piece, bool advise)
{
	struct readahead_vma *vmas = NULL;
	bool **mapped = NULL;
	size_t count = 0, capacity = 0, v;

	if (!pages || !piece)
		return;
	for (v = 0; v < ra->vma_count; v++) {
		uint64_t a = ra->vmas[v].virtual_page, e = a + ra->vmas[v].pages, at = a, cut;

		/* the cuts inside (a, e): first, each piece's end, first + pages */
		for (cut = first; cut <= first + pages; cut = cut + piece < first + pages ? cut + piece : first + pages) {
			if (cut > at && cut < e) {
				push_part(ra, v, at, cut, &vmas, &mapped, &count, &capacity);
				at = cut;
			}
			if (cut == first + pages)
				break;
		}
		push_part(ra, v, at, e, &vmas, &mapped, &count, &capacity);
		free(ra->mapped[v]);
	}
	free(ra->vmas);
	free(ra->mapped);
	ra->vmas = vmas;
	ra->mapped = mapped;
	ra->vma_count = count;
	/* the pieces 0, 2, 4... of the range advised */
	for (v = 0; v < count && advise; v++)
		if (vmas[v].virtual_page >= first && vmas[v].virtual_page < first + pages &&
		    (vmas[v].virtual_page - first) / piece % 2 == 0)
			vmas[v].random = true;
}

void readahead_random(struct readahead *ra, uint64_t first, uint64_t pages)
{
	size_t v;

	if (!pages)
		return;
	readahead_cut(ra, first, pages, pages, false);
	for (v = 0; v < ra->vma_count; v++)
		if (ra->vmas[v].virtual_page >= first && ra->vmas[v].virtual_page + ra->vmas[v].pages <= first + pages)
			ra->vmas[v].random = true;
}

size_t readahead_vma_at(const struct readahead *ra, uint64_t virtual_page)
{
	size_t v;

	for (v = 0; v < ra->vma_count; v++)
		if (virtual_page >= ra->vmas[v].virtual_page && virtual_page - ra->vmas[v].virtual_page < ra->vmas[v].pages)
			return v;
	return ra->vma_count;
}

uint64_t readahead_pages_read(const struct readahead *ra)
{
	return ra->pages_read;
}

uint64_t readahead_requests(const struct readahead *ra)
{
	return ra->requests;
}

const struct readahead_request *readahead_request_list(const struct readahead *ra, size_t *count)
{
	*count = ra->log_count;
	return ra->log;
}

const char *readahead_cause_name(enum readahead_cause cause)
{
	switch (cause) {
	case READAHEAD_READ: return "read";
	case READAHEAD_FAULT: return "fault";
	case READAHEAD_FAULT_CODE: return "code-fault";
	case READAHEAD_MARKED: return "marked";
	case READAHEAD_ALONE: return "alone";
	case READAHEAD_WILLNEED: return "willneed";
	}
	return "?";
}

bool readahead_cached(const struct readahead *ra, uint64_t page)
{
	return present(ra, page);
}
