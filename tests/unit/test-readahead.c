/* Unit tests of lib/readahead.c, the page-cache model: small synthetic
   access sequences, each row with the read requests and the cached pages
   worked out by hand from the kernel rules readahead.h lists.

   A request is written "FIRST+PAGES CAUSE@PAGE" (pages FIRST to
   FIRST+PAGES-1, made for CAUSE at PAGE), the cached pages as ranges
   "A-B,C".  Pages are 4 KiB: read_ahead_kb 128 is a window of 32 pages.
   Unless a row says otherwise a data mapping maps the whole file at
   virtual page 1024, so that a page's place in its page table (what
   fault-around aligns on) is its file page modulo 512. */
#define _GNU_SOURCE
#include "readahead.h"
#include "unit.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum op_kind { OP_END, OP_READ, OP_TOUCH, OP_WRITE };

/* OP_READ: a read(2) of b bytes at offset a; OP_TOUCH, OP_WRITE: a first
   read or write access to file page b through mapping a. */
struct op {
	enum op_kind kind;
	uint64_t a, b;
};

#define READ(offset, count) { OP_READ, (offset), (count) }
#define TOUCH(vma, page) { OP_TOUCH, (vma), (page) }
#define WRITE(vma, page) { OP_WRITE, (vma), (page) }
#define PAGES(n) ((uint64_t)(n) * 4096)

struct ra_case {
	const char *name;
	uint64_t file_pages;
	unsigned long read_ahead_kb;
	struct readahead_vma vmas[3];
	size_t vma_count;
	struct op ops[8];
	const char *requests;
	const char *cached;
};

#define DATA(pages) { 0, (pages), 1024, false }
/* A program's three mappings over a file of 100 pages: headers and
   read-only data (pages 0-9), code (10-39), more read-only data (40-99). */
#define PROGRAM { 0, 10, 1024, false }, { 10, 30, 1034, true }, { 40, 60, 1074, false }

static const struct ra_case cases[] = {
	/* read(2): page_cache_sync_ra's initial window at several read_ahead_kb */
	{ "execve's first read (256 bytes) at 128 KiB: the initial window, 4 pages", 100, 128, { { 0 } }, 0,
	  { READ(0, 256) }, "0+4 read@0", "0-3" },
	{ "the same read at 4 KiB: the page alone", 100, 4, { { 0 } }, 0, { READ(0, 256) }, "0+1 read@0", "0" },
	{ "the same read at 16 KiB: 2 pages", 100, 16, { { 0 } }, 0, { READ(0, 256) }, "0+2 read@0", "0-1" },
	{ "the same read at 8192 KiB: still 4 pages", 5000, 8192, { { 0 } }, 0, { READ(0, 256) }, "0+4 read@0",
	  "0-3" },
	{ "read_ahead_kb 0: each page of a read is read alone", 100, 0, { { 0 } }, 0, { READ(0, PAGES(2)) },
	  "0+1 read@0, 1+1 read@1", "0-1" },
	{ "an 8-page read at 128 KiB: a window of 16 pages", 100, 128, { { 0 } }, 0, { READ(0, PAGES(8)) },
	  "0+16 read@0", "0-15" },
	{ "a 64-page read at 128 KiB: read whole; the mark in it (page 32) starts the next window at once", 200,
	  128, { { 0 } }, 0, { READ(0, PAGES(64)) }, "0+64 read@0, 64+64 marked@32", "0-127" },
	{ "a small read at offset 0 crosses the mark (page 1): the next window, 8 pages", 200, 128, { { 0 } }, 0,
	  { READ(0, 256), READ(0, PAGES(3)) }, "0+4 read@0, 4+8 marked@1", "0-11" },
	{ "sequential reads: each mark reached starts the next window, its end aligned to its folio order", 200,
	  128, { { 0 } }, 0,
	  { READ(0, 256), READ(PAGES(1), 1), READ(PAGES(4), 1), READ(PAGES(12), 1) },
	  "0+4 read@0, 4+8 marked@1, 12+4 marked@4, 16+8 marked@12", "0-23" },
	{ "at 256 KiB the second window is twice the first (4 pages is not under 64 / 16)", 200, 256, { { 0 } }, 0,
	  { READ(0, 256), READ(PAGES(1), 1) }, "0+4 read@0, 4+8 marked@1", "0-11" },
	{ "at 512 KiB four times the first (4 pages is under 128 / 16)", 200, 512, { { 0 } }, 0,
	  { READ(0, 256), READ(PAGES(1), 1) }, "0+4 read@0, 4+16 marked@1", "0-19" },
	{ "a random read of the file's last page: that page alone", 100, 128, { { 0 } }, 0,
	  { READ(PAGES(99), 10) }, "99+1 read@99", "99" },
	{ "a random 2-page read in the middle: read as is", 100, 128, { { 0 } }, 0, { READ(PAGES(50), PAGES(2)) },
	  "50+2 read@50", "50-51" },
	{ "a read after a run cached from the file's start: twice the run, plus the read", 200, 128, { { 0 } }, 0,
	  { READ(0, 256), READ(PAGES(4), 1) }, "0+4 read@0, 4+9 read@4", "0-12" },
	{ "a 1-page read after a 1-page cached run (not at the previous read): random, read as is", 200, 128,
	  { { 0 } }, 0, { READ(PAGES(50), 1), READ(PAGES(10), 1), READ(PAGES(51), 1) },
	  "50+1 read@50, 10+1 read@10, 51+1 read@51", "10,50-51" },
	{ "a 1-page read after a 2-page cached run: a window of the run plus the read, its last page marked; "
	  "reading that page reads the next window (6 pages, cut to 5 by the alignment to 4)",
	  200, 128, { { 0 } }, 0,
	  { READ(PAGES(50), PAGES(2)), READ(PAGES(10), 1), READ(PAGES(52), 1), READ(PAGES(54), 1) },
	  "50+2 read@50, 10+1 read@10, 52+3 read@52, 55+5 marked@54", "10,50-59" },
	{ "an initial window crossing the end of the file stops there", 3, 128, { { 0 } }, 0, { READ(0, 256) },
	  "0+3 read@0", "0-2" },
	{ "a read past the end of the file, and one of 0 bytes, read nothing", 3, 128, { { 0 } }, 0,
	  { READ(PAGES(3), 100), READ(PAGES(5), 1), READ(0, 0) }, "", "" },
	{ "an empty file reads nothing", 0, 128, { { 0 } }, 0, { READ(0, 256) }, "", "" },
	{ "a mark reached out of sequence: the window starts where page_cache_next_miss's walk stops; from "
	  "inside a 4-page folio it overshoots the first page missing (12)",
	  200, 128, { { 0 } }, 0,
	  { READ(0, 256), READ(PAGES(1), 1), READ(PAGES(50), PAGES(1)), READ(PAGES(51), 1), READ(PAGES(5), 1) },
	  "0+4 read@0, 4+8 marked@1, 50+1 read@50, 51+4 read@51, 13+19 marked@4", "0-11,13-31,50-54" },

	/* mmap: read-around, the marked page, fault-around, the file's ends */
	{ "a fault in a data mapping: 32 pages centred on it", 200, 128, { DATA(200) }, 1, { TOUCH(0, 100) },
	  "84+32 fault@100", "84-115" },
	{ "touching its marked page (a quarter from the end) reads the next 32 pages, in 4-page folios", 200, 128,
	  { DATA(200) }, 1, { TOUCH(0, 100), TOUCH(0, 108) }, "84+32 fault@100, 116+32 marked@108", "84-147" },
	{ "a fault at the file's first page: the window starts there", 200, 128, { DATA(200) }, 1, { TOUCH(0, 0) },
	  "0+32 fault@0", "0-31" },
	{ "a fault at the file's last page: the window is cut at the end, its mark past it", 40, 128, { DATA(40) },
	  1, { TOUCH(0, 39) }, "23+17 fault@39", "23-39" },
	{ "read_ahead_kb 0: a fault reads its page alone; a second touch of a page reads nothing", 40, 0,
	  { DATA(40) }, 1, { TOUCH(0, 5), TOUCH(0, 6), TOUCH(0, 5) }, "5+1 alone@5, 6+1 alone@6", "5-6" },
	{ "a fault at 512 KiB: 128 pages centred on it", 400, 512, { DATA(400) }, 1, { TOUCH(0, 100) },
	  "36+128 fault@100", "36-163" },
	{ "at 16 KiB: 4 pages, the last marked; touching it reads the next 4", 100, 16, { DATA(100) }, 1,
	  { TOUCH(0, 10), TOUCH(0, 11) }, "8+4 fault@10, 12+4 marked@11", "8-15" },
	{ "at 8 KiB: 2 pages, none marked", 100, 8, { DATA(100) }, 1, { TOUCH(0, 10), TOUCH(0, 9) }, "9+2 fault@10",
	  "9-10" },
	{ "fault-around maps cached neighbours (no read); a window meeting cached pages reads only the new ones",
	  100, 128, { DATA(100) }, 1, { TOUCH(0, 50), TOUCH(0, 52), TOUCH(0, 60), TOUCH(0, 70) },
	  "34+32 fault@50, 66+20 fault@70", "34-85" },
	{ "a read-around window over two cached pages: one request for each run of new pages", 200, 128,
	  { DATA(200) }, 1, { READ(PAGES(50), PAGES(1)), READ(PAGES(56), PAGES(1)), TOUCH(0, 66) },
	  "50+1 read@50, 56+1 read@56, 51+5 fault@66, 57+25 fault@66", "50-81" },
	{ "a mark covers its whole folio: touching the 5th page of an 8-page marked folio reads ahead; the walk "
	  "from inside it overshoots (24-28 left out), the window end aligned to order 5 (32)",
	  200, 128, { DATA(200) }, 1,
	  { READ(0, 256), READ(PAGES(1), 1), READ(PAGES(4), 1), READ(PAGES(12), 1), TOUCH(0, 20) },
	  "0+4 read@0, 4+8 marked@1, 12+4 marked@4, 16+8 marked@12, 29+3 marked@20", "0-23,29-31" },
	{ "the walk from inside a folio near the end of a 64-slot node: in step again past it (window at 148, "
	  "31 pages on)",
	  200, 128, { DATA(200) }, 1, { TOUCH(0, 100), TOUCH(0, 108), TOUCH(0, 10), TOUCH(0, 117) },
	  "84+32 fault@100, 116+32 marked@108, 0+32 fault@10, 148+32 marked@117", "0-31,84-179" },
	{ "a page touched twice faults once", 100, 128, { DATA(100) }, 1, { TOUCH(0, 50), TOUCH(0, 50) },
	  "34+32 fault@50", "34-65" },
	{ "a page outside its mapping, and a mapping that does not exist, are ignored", 100, 128,
	  { { 10, 20, 1034, false } }, 1, { TOUCH(0, 5), TOUCH(0, 30), TOUCH(3, 15), WRITE(0, 9) }, "", "" },
	{ "a code mapping: the window runs forward from the fault and stops at the mapping's end", 100, 128,
	  { PROGRAM }, 3, { TOUCH(1, 30), TOUCH(1, 12) }, "30+10 code-fault@30, 12+18 code-fault@12", "12-39" },
	{ "a code fault at 8192 KiB stops at the mapping's end; a data fault's window then reads around it", 100,
	  8192, { PROGRAM }, 3, { TOUCH(1, 10), TOUCH(2, 50) },
	  "10+30 code-fault@10, 0+10 fault@50, 40+60 fault@50", "0-99" },
	{ "a write fault (padzero) reads around like a read fault", 100, 128, { DATA(100) }, 1, { WRITE(0, 63) },
	  "47+32 fault@63", "47-78" },
};

/* The requests made so far, as the table writes them (newly allocated). */
static char *requests_text(const struct readahead *ra)
{
	const struct readahead_request *list;
	size_t count, i, size;
	char *text = NULL;
	FILE *f = open_memstream(&text, &size);

	list = readahead_request_list(ra, &count);
	for (i = 0; i < count; i++)
		fprintf(f, "%s%llu+%llu %s@%llu", i ? ", " : "", (unsigned long long)list[i].first,
			(unsigned long long)list[i].pages, readahead_cause_name(list[i].cause),
			(unsigned long long)list[i].page);
	fclose(f);
	return text;
}

/* The cached pages of a file of pages pages, as ranges (newly allocated);
   *count set to how many. */
static char *cached_text(const struct readahead *ra, uint64_t pages, uint64_t *count)
{
	char *text = NULL;
	size_t size;
	FILE *f = open_memstream(&text, &size);
	uint64_t p, first;
	bool any = false;

	*count = 0;
	for (p = 0; p < pages; p++) {
		if (!readahead_cached(ra, p))
			continue;
		for (first = p; p + 1 < pages && readahead_cached(ra, p + 1); p++)
			;
		fprintf(f, any ? ",%llu" : "%llu", (unsigned long long)first);
		if (p > first)
			fprintf(f, "-%llu", (unsigned long long)p);
		*count += p - first + 1;
		any = true;
	}
	fclose(f);
	return text;
}

/* The counters agree with the list: pages read is the sum of the
   requests, each page read once (so also the number cached). */
static void check_totals(const struct readahead *ra, uint64_t cached_count)
{
	const struct readahead_request *list;
	size_t count, i;
	uint64_t sum = 0;

	list = readahead_request_list(ra, &count);
	for (i = 0; i < count; i++)
		sum += list[i].pages;
	EXPECT_INT(count, readahead_requests(ra));
	EXPECT_INT(sum, readahead_pages_read(ra));
	EXPECT_INT(cached_count, readahead_pages_read(ra));
}

static void run_case(const struct ra_case *c)
{
	struct readahead *ra = readahead_new(c->file_pages, c->read_ahead_kb / 4, c->vmas, c->vma_count);
	const struct op *op;
	uint64_t cached_count;
	char *requests, *cached;

	unit_case(c->name);
	for (op = c->ops; op->kind != OP_END; op++) {
		if (op->kind == OP_READ)
			readahead_read(ra, op->a, op->b);
		else
			readahead_touch(ra, op->a, op->b, op->kind == OP_WRITE);
	}
	requests = requests_text(ra);
	cached = cached_text(ra, c->file_pages + 8, &cached_count);
	EXPECT_STR(c->requests, requests);
	EXPECT_STR(c->cached, cached);
	check_totals(ra, cached_count);
	free(requests);
	free(cached);
	readahead_free(ra);
	unit_case(NULL);
}

/* mmap_miss: after more than 100 faults not offset by hits, a fault
   reads its page alone.  At 4 KiB of read-ahead the read-around window is
   the faulting page itself, and a write maps nothing around it: 101
   writes through a first mapping to pages not cached (0-100, or 1-101)
   leave mmap_miss at 101, the last of them already read alone.  Then,
   through a second mapping, writes to cached pages (each a hit: mmap_miss
   goes down by one) and a read fault on a page not cached.  Its
   fault-around (16 pages aligned on virtual addresses, cut at the
   mapping's start and at the end of the page table of 512 entries)
   counts the cached pages it maps as hits; when those bring mmap_miss to
   99 or less, the fault reads around again, else the page alone. */
static const struct {
	const char *name;
	uint64_t primed;          /* the first of the 101 pages written */
	struct readahead_vma vma; /* the second mapping */
	unsigned cached_writes;   /* writes to pages primed, primed + 1... through it */
	uint64_t page;            /* the page faulted through it */
	const char *request;
} mmap_miss_cases[] = {
	{ "page 101 at slot 101: fault-around over pages 96-111 maps 96-100", 0, { 0, 200, 1024, false }, 0, 101,
	  "101+1 fault@101" },
	{ "a mapping that starts at page 100: fault-around maps page 100 alone", 0, { 100, 100, 1124, false }, 0,
	  101, "101+1 alone@101" },
	{ "page 101 at slot 0 of a page table: fault-around over pages 101-116 maps none", 0,
	  { 0, 200, 411, false }, 0, 101, "101+1 alone@101" },
	{ "page 101 at slot 1: pages 100-115, one cached", 0, { 0, 200, 412, false }, 0, 101, "101+1 alone@101" },
	{ "page 101 at slot 8: pages 93-108, 8 cached (the window is 16 pages, not 8)", 0, { 0, 200, 419, false },
	  0, 101, "101+1 fault@101" },
	{ "page 101 at slot 15: pages 86-101, 15 cached", 0, { 0, 200, 426, false }, 0, 101, "101+1 fault@101" },
	{ "page 101 at slot 16: pages 101-116, none cached", 0, { 0, 200, 427, false }, 0, 101, "101+1 alone@101" },
	{ "page 0 at slot 510, the mapping's start: fault-around stops at the page table's end (pages 0-1)", 1,
	  { 0, 200, 510, false }, 0, 0, "0+1 alone@0" },
	{ "two writes to cached pages are hits: page 101 at slot 0 reads around again", 0, { 0, 200, 411, false },
	  2, 101, "101+1 fault@101" },
	{ "one write to a cached page is not enough", 0, { 0, 200, 411, false }, 1, 101, "101+1 alone@101" },
};

static void test_mmap_miss(void)
{
	size_t i;

	for (i = 0; i < sizeof(mmap_miss_cases) / sizeof(mmap_miss_cases[0]); i++) {
		struct readahead_vma vmas[2] = { { 0, 200, 1024, false }, mmap_miss_cases[i].vma };
		struct readahead *ra = readahead_new(200, 1, vmas, 2);
		const struct readahead_request *list;
		uint64_t p, first = mmap_miss_cases[i].primed;
		size_t count;
		char *last;

		unit_case(mmap_miss_cases[i].name);
		for (p = first; p <= first + 100; p++)
			readahead_touch(ra, 0, p, true);
		list = readahead_request_list(ra, &count);
		if (EXPECT_INT(101, count)) {
			EXPECT_STR("fault", readahead_cause_name(list[99].cause));
			EXPECT_INT(first + 99, list[99].first);
			EXPECT_STR("alone", readahead_cause_name(list[100].cause));
			EXPECT_INT(first + 100, list[100].first);
		}
		for (p = first; p < first + mmap_miss_cases[i].cached_writes; p++)
			readahead_touch(ra, 1, p, true);
		readahead_touch(ra, 1, mmap_miss_cases[i].page, false);
		list = readahead_request_list(ra, &count);
		if (EXPECT_INT(102, count)) {
			last = xasprintf("%llu+%llu %s@%llu", (unsigned long long)list[101].first,
					 (unsigned long long)list[101].pages, readahead_cause_name(list[101].cause),
					 (unsigned long long)list[101].page);
			EXPECT_STR(mmap_miss_cases[i].request, last);
			free(last);
		}
		readahead_free(ra);
		unit_case(NULL);
	}
}

/* readahead_cut: one executable mapping of 256 pages, 8 pages of
   read-ahead (32 KiB), pages [16, 48) cut into pieces of 4: a fault in a
   piece reads to its end, one before the range to the range's start, one
   after it a whole window; the indexes are found again by address. */
static void test_cut(void)
{
	struct readahead_vma vma = { 0, 256, 1024, true };
	struct readahead *ra = readahead_new(256, 8, &vma, 1);
	char *got;

	unit_case("cut");
	readahead_cut(ra, 1024 + 16, 32, 4, true);
	EXPECT_INT(0, readahead_vma_at(ra, 1024));
	EXPECT_INT(1, readahead_vma_at(ra, 1024 + 16));
	EXPECT_INT(2, readahead_vma_at(ra, 1024 + 21));
	EXPECT_INT(8, readahead_vma_at(ra, 1024 + 47));
	EXPECT_INT(9, readahead_vma_at(ra, 1024 + 48));
	EXPECT_INT(10, readahead_vma_at(ra, 1024 + 256));
	readahead_touch(ra, readahead_vma_at(ra, 1024 + 21), 21, false);
	readahead_touch(ra, readahead_vma_at(ra, 1024 + 12), 12, false);
	readahead_touch(ra, readahead_vma_at(ra, 1024 + 100), 100, false);
	got = requests_text(ra);
	EXPECT_STR("21+3 code-fault@21, 12+4 code-fault@12, 100+8 code-fault@100", got);
	free(got);
	readahead_free(ra);
	unit_case(NULL);
}

/* readahead_random: a read-only mapping of 64 pages at page 100 of the
   file, 8 pages of read-ahead, after an executable one of 100: before
   the advice a fault reads a window centred on its page, over the code
   before it; advised, a fault reads its page alone, and a page marked by
   a window read before reads nothing more; pages [120, 130) alone
   advised cut the mapping there, and a fault outside reads a window
   again.  In the executable mapping the advice changes nothing (a fault
   reads forward from its page). */
static void test_random(void)
{
	struct readahead_vma vmas[] = { { 0, 100, 1000, true }, { 100, 64, 2000, false } };
	struct readahead *ra = readahead_new(164, 8, vmas, 2);
	char *got;

	unit_case("random");
	readahead_touch(ra, 1, 104, false);
	readahead_random(ra, 2000, 64);
	EXPECT_INT(1, readahead_vma_at(ra, 2063));  /* the whole mapping: not cut */
	readahead_touch(ra, 1, 106, false);  /* cached, marked: nothing more */
	readahead_touch(ra, 1, 140, false);
	readahead_touch(ra, 1, 150, false);
	readahead_random(ra, 1010, 20);
	readahead_touch(ra, readahead_vma_at(ra, 1020), 20, false);
	got = requests_text(ra);
	EXPECT_STR("100+8 fault@104, 140+1 alone@140, 150+1 alone@150, 20+8 code-fault@20", got);
	free(got);
	readahead_free(ra);

	ra = readahead_new(164, 8, vmas, 2);
	readahead_random(ra, 2020, 10);
	readahead_touch(ra, readahead_vma_at(ra, 2025), 125, false);
	readahead_touch(ra, readahead_vma_at(ra, 2050), 150, false);
	got = requests_text(ra);
	EXPECT_STR("125+1 alone@125, 146+8 fault@150", got);
	free(got);
	readahead_free(ra);
	unit_case(NULL);
}

/* readahead_cut with its advice, in code: read(2) calls of pages 14 and
   15 read pages 14 to 16 and mark page 16, in the piece the cut advises
   first ([16, 20)); a fault on page 16 then reads nothing more, where the
   same cut not advised reads the next window from it. */
static void test_cut_advised(void)
{
	static const char *const want[] = { "14+1 read@14, 15+2 read@15, 17+3 marked@16",
					    "14+1 read@14, 15+2 read@15" };
	struct readahead_vma vma = { 0, 256, 1024, true };
	int advise;

	unit_case("cut-advised");
	for (advise = 0; advise < 2; advise++) {
		struct readahead *ra = readahead_new(256, 8, &vma, 1);
		char *got;

		readahead_cut(ra, 1024 + 16, 32, 4, advise);
		readahead_read(ra, 14 * 4096, 1);
		readahead_read(ra, 15 * 4096, 1);
		readahead_touch(ra, readahead_vma_at(ra, 1024 + 16), 16, false);
		got = requests_text(ra);
		EXPECT_STR(want[advise], got);
		free(got);
		readahead_free(ra);
	}
	unit_case(NULL);
}

static void test_cause_names(void)
{
	EXPECT_STR("read", readahead_cause_name(READAHEAD_READ));
	EXPECT_STR("fault", readahead_cause_name(READAHEAD_FAULT));
	EXPECT_STR("code-fault", readahead_cause_name(READAHEAD_FAULT_CODE));
	EXPECT_STR("marked", readahead_cause_name(READAHEAD_MARKED));
	EXPECT_STR("alone", readahead_cause_name(READAHEAD_ALONE));
	EXPECT_STR("?", readahead_cause_name((enum readahead_cause)99));
	readahead_free(NULL);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_mmap_miss();
	test_cut();
	test_random();
	test_cut_advised();
	test_cause_names();
	return unit_end("test-readahead");
}
