/* Unit tests of lib/coldstart.c: what a cold start reads of a file, from
   its program headers and the addresses its run touched, replayed through
   the page-cache model.  The table's file is synthetic (its segments are
   written here, no ELF file needed), so that each expected request can be
   worked out by hand; then coldstart_file_read on real programs built by
   the test with gcc.

   The synthetic program: 100 pages (409600 bytes), program headers at
   byte 64 (8 of 56 bytes), the interpreter's name at 0x318, and five
   PT_LOAD segments:
     headers and read-only data  file pages 0-1    at 0x0
     code (R+X)                  file pages 2-41   at 0x2000
     read-only data              file pages 42-61  at 0x2a000
     data (R+W), 0x1000 bytes    file pages 62-63  at 0x3f010,
       then 0x2000 bytes of .bss: the page where the data ends (file page
       63) is written by the kernel (padzero) before the program runs
     .bss alone (R+W)            no bytes in the file, at 0x43010
   Requests are written as in test-readahead.c: "FIRST+PAGES CAUSE@PAGE". */
#define _GNU_SOURCE
#include "coldstart.h"
#include "unit.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct elf_segment program_segments[] = {
	{ PT_PHDR, PF_R, 64, 64, 448, 448, 8 },
	{ PT_INTERP, PF_R, 0x318, 0x318, 28, 28, 1 },
	{ PT_LOAD, PF_R, 0, 0, 0x2000, 0x2000, 0x1000 },
	{ PT_LOAD, PF_R | PF_X, 0x2000, 0x2000, 0x28000, 0x28000, 0x1000 },
	{ PT_LOAD, PF_R, 0x2a000, 0x2a000, 0x14000, 0x14000, 0x1000 },
	{ PT_LOAD, PF_R | PF_W, 0x3e010, 0x3f010, 0x1000, 0x3000, 0x1000 },
	{ PT_LOAD, PF_R | PF_W, 0x40010, 0x43010, 0, 0x1000, 0x1000 },
	{ PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16 },
};

/* The run's first touches: the entry (page 2, cached by execve's read),
   code at page 5, read-only data at page 42, data at page 62 (the page of
   the segment's start, below its first byte), .bss past the file's
   pages, the .bss-only segment, and an address in no segment. */
static const uint64_t touched[] = { 0x2000, 0x5123, 0x2a100, 0x3f000, 0x41000, 0x43000, 0x100000 };
#define ALL_TOUCHED (sizeof(touched) / sizeof(touched[0]))

struct coldstart_case {
	const char *name;
	bool program;
	uint64_t table_offset, interp_offset;
	unsigned long read_ahead_kb;
	size_t touched_count;
	const char *requests;
};

static const struct coldstart_case cases[] = {
	{ "a program at 128 KiB, before it runs: execve's first read, then padzero's write fault on page 63", true,
	  64, 0x318, 128, 0, "0+4 read@0, 47+32 fault@63" },
	{ "the run: code read forward from page 5; data read around page 42, the pages cached left out; page 62 "
	  "cached; .bss and an address in no segment read nothing",
	  true, 64, 0x318, 128, ALL_TOUCHED, "0+4 read@0, 47+32 fault@63, 5+32 code-fault@5, 37+10 fault@42" },
	{ "program headers in page 1: their read reaches the mark there and reads the next 8 pages", true, 0x1000,
	  0x318, 128, 0, "0+4 read@0, 4+8 marked@1, 47+32 fault@63" },
	{ "the interpreter's name in page 1: its read reaches the mark there", true, 64, 0x1318, 128, 0,
	  "0+4 read@0, 4+8 marked@1, 47+32 fault@63" },
	{ "read_ahead_kb 0: every page alone, the entry's page too", true, 64, 0x318, 0, ALL_TOUCHED,
	  "0+1 read@0, 63+1 alone@63, 2+1 alone@2, 5+1 alone@5, 42+1 alone@42, 62+1 alone@62" },
	{ "a library: ld.so reads 832 bytes (the headers in them), no padzero", false, 64, 0x318, 128, ALL_TOUCHED,
	  "0+4 read@0, 5+32 code-fault@5, 37+21 fault@42, 58+20 fault@62" },
	{ "a library whose program headers lie past the first 832 bytes: a second read", false, 0x5000, 0x318, 128,
	  0, "0+4 read@0, 5+1 read@5" },
};

static char *requests_text(const struct readahead_request *list, uint64_t count)
{
	char *text = NULL;
	size_t size;
	FILE *f = open_memstream(&text, &size);
	uint64_t i;

	for (i = 0; i < count; i++)
		fprintf(f, "%s%llu+%llu %s@%llu", i ? ", " : "", (unsigned long long)list[i].first,
			(unsigned long long)list[i].pages, readahead_cause_name(list[i].cause),
			(unsigned long long)list[i].page);
	fclose(f);
	return text;
}

static void run_case(const struct coldstart_case *c)
{
	struct coldstart_file file = { 0 };
	struct coldstart_reads reads, plain;
	uint64_t i, sum = 0;
	char *requests;

	unit_case(c->name);
	file.size = 100 * 4096;
	program_segments[1].offset = c->interp_offset;
	file.segments = program_segments;
	file.segment_count = sizeof(program_segments) / sizeof(program_segments[0]);
	file.table_offset = c->table_offset;
	file.table_size = 448;
	file.position_independent = !c->program;
	reads = coldstart_replay_requests(&file, c->program, touched, c->touched_count, c->read_ahead_kb);
	requests = requests_text(reads.list, reads.requests);
	EXPECT_STR(c->requests, requests);
	for (i = 0; i < reads.requests; i++)
		sum += reads.list[i].pages;
	EXPECT_INT(sum, reads.pages);
	/* coldstart_replay: the same counts, no list */
	plain = coldstart_replay(&file, c->program, touched, c->touched_count, c->read_ahead_kb);
	EXPECT_INT(reads.pages, plain.pages);
	EXPECT_INT(reads.requests, plain.requests);
	CHECK(plain.list == NULL);
	free(requests);
	free(reads.list);
	unit_case(NULL);
}

/* A file with no segment at all: only the header reads. */
static void test_no_segments(void)
{
	struct coldstart_file file = { .size = 3 * 4096, .table_offset = 64, .table_size = 0 };
	struct coldstart_reads reads;
	char *requests;

	unit_case("a file with no segments");
	reads = coldstart_replay_requests(&file, true, touched, ALL_TOUCHED, 128);
	requests = requests_text(reads.list, reads.requests);
	EXPECT_STR("0+3 read@0", requests);
	free(requests);
	free(reads.list);
	unit_case(NULL);
}

/* linkopt-prefetch.o's madvise(MADV_WILLNEED), made before the second
   touch (page 5): of code pages 10-29, inside the window the fault on
   page 5 reads anyway, the madvise reads them first and the fault the
   rest of its window around them (the same pages in all); of pages 38-41,
   beyond that window, 4 pages more.  The madvise asks 64 KiB at a time
   (prefetch/prefetch.c): 16 pages, then 4. */
static void test_prefetch(void)
{
	struct coldstart_file file = { .size = 100 * 4096, .segments = program_segments, .table_offset = 64,
				       .table_size = 448, .prefetch_count = 1, .prefetch_start = { 0xa000 },
				       .prefetch_end = { 0x1e000 } };
	struct coldstart_reads reads, none;
	char *requests;

	unit_case("the prefetch's madvise inside the window of a later fault");
	program_segments[1].offset = 0x318;
	file.segment_count = sizeof(program_segments) / sizeof(program_segments[0]);
	reads = coldstart_replay_requests_at(&file, true, touched, 2, 128, 1);
	requests = requests_text(reads.list, reads.requests);
	EXPECT_STR("0+4 read@0, 47+32 fault@63, 10+16 willneed@10, 26+4 willneed@26, 5+5 code-fault@5, 30+7 code-fault@5",
		   requests);
	none = coldstart_replay_at(&file, true, touched, 2, 128, COLDSTART_NO_PREFETCH);
	EXPECT_INT(none.pages, reads.pages);
	free(requests);
	free(reads.list);

	unit_case("the prefetch's madvise beyond the window of a later fault");
	file.prefetch_start[0] = 0x26000;
	file.prefetch_end[0] = 0x2a000;
	reads = coldstart_replay_requests_at(&file, true, touched, 2, 128, 1);
	requests = requests_text(reads.list, reads.requests);
	EXPECT_STR("0+4 read@0, 47+32 fault@63, 38+4 willneed@38, 5+32 code-fault@5", requests);
	EXPECT_INT(none.pages + 4, reads.pages);
	free(requests);
	free(reads.list);
	unit_case(NULL);
}

static char *folder;

/* Runs a shell command line in folder; true when it exits 0. */
static bool shell(const char *fmt, const char *arg)
{
	char *command = xasprintf(fmt, arg);
	char *line = xasprintf("cd '%s' && (%s) > /dev/null 2>&1", folder, command);
	int status = system(line);

	free(command);
	free(line);
	return status == 0;
}

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", folder, name);
}

static const struct elf_segment *first_segment(const struct coldstart_file *file, uint32_t type, uint32_t flags)
{
	size_t i;

	for (i = 0; i < file->segment_count; i++)
		if (file->segments[i].type == type && (file->segments[i].flags & flags) == flags)
			return &file->segments[i];
	return NULL;
}

/* coldstart_file_read on programs gcc builds here, and on files that are
   no program. */
static void test_file_read(void)
{
	struct coldstart_file file;
	struct coldstart_reads reads;
	struct stat st;
	char *why = NULL, *path;

	unit_case("coldstart_file_read: a program linked -no-pie, with a build-id");
	if (!shell("printf 'int main(void) { return 0; }\\n' > main.c && "
		   "gcc -o %s -no-pie -Wl,--build-id=sha1 main.c", "fixed")) {
		printf("test-coldstart: gcc cannot link a program: coldstart_file_read's tests skipped\n");
		unit_case(NULL);
		return;
	}
	path = path_in("fixed");
	if (EXPECT_INT(0, coldstart_file_read(&file, path, &why))) {
		CHECK(stat(path, &st) == 0);
		EXPECT_INT(st.st_size, file.size);
		CHECK(!file.position_independent);
		EXPECT_INT(40, strlen(file.build_id));
		EXPECT_INT(64, file.table_offset);
		EXPECT_INT(56 * file.segment_count, file.table_size);
		CHECK(first_segment(&file, PT_INTERP, 0) != NULL);
		CHECK(first_segment(&file, PT_LOAD, PF_X) != NULL);
		reads = coldstart_replay_requests(&file, true, NULL, 0, 128);
		CHECK(reads.requests >= 1 && reads.list[0].first == 0 && reads.list[0].cause == READAHEAD_READ);
		free(reads.list);
		coldstart_file_free(&file);
		CHECK(file.segments == NULL && file.segment_count == 0);
	} else {
		fprintf(stderr, "  why: %s\n", why);
		free(why);
	}
	free(path);

	unit_case("coldstart_file_read: a PIE without a build-id");
	why = NULL;
	path = path_in("pie");
	if (CHECK(shell("gcc -o %s -pie -fPIE -Wl,--build-id=none main.c", "pie")) &&
	    EXPECT_INT(0, coldstart_file_read(&file, path, &why))) {
		CHECK(file.position_independent);
		EXPECT_STR("", file.build_id);
		coldstart_file_free(&file);
	}
	free(why);
	free(path);

	unit_case("coldstart_file_read: a file that is not ELF");
	why = NULL;
	path = path_in("main.c");
	EXPECT_INT(-1, coldstart_file_read(&file, path, &why));
	EXPECT_STR("not an ELF file", why);
	free(why);
	free(path);

	unit_case("coldstart_file_read: a missing file");
	why = NULL;
	path = path_in("missing");
	EXPECT_INT(-1, coldstart_file_read(&file, path, &why));
	CHECK(why && strstr(why, strerror(ENOENT)));
	free(why);
	free(path);

	unit_case("coldstart_file_read: a program cut after 200 bytes");
	why = NULL;
	path = path_in("cut");
	if (CHECK(shell("head -c 200 fixed > %s", "cut"))) {
		EXPECT_INT(-1, coldstart_file_read(&file, path, &why));
		CHECK(why != NULL);
	}
	free(why);
	free(path);
	unit_case(NULL);
}

int main(void)
{
	size_t i;

	test_prefetch();
	int status;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_no_segments();
	folder = unit_folder("test-coldstart");
	if (!folder)
		return 1;
	test_file_read();
	status = unit_end("test-coldstart");
	if (status == 0)
		shell("rm -rf '%s'", folder);
	else
		fprintf(stderr, "test-coldstart: kept %s\n", folder);
	free(folder);
	return status;
}
