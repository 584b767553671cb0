#include "coldstart.h"
#include "cut.h"
#include "readahead.h"
#include "trace.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096
#define BINPRM_BUF_SIZE 256     /* what execve reads first */
#define LD_SO_FIRST_READ 832    /* what ld.so reads first of a library (struct filebuf) */

/* The value of the symbol name defined in elf, or 0. */
static uint64_t symbol_value(const struct elf_object *elf, const char *name)
{
	uint32_t k;

	for (k = elfobj_symbol_by_name(elf, name); k; k = elfobj_symbol_next_named(elf, k))
		if (elf->symbols[k].shndx != SHN_UNDEF)
			return elf->symbols[k].value;
	return 0;
}

/* What linkopt-prefetch.o (prefetch/prefetch.c) madvises: the traced
   code, or its two parts when deporder's script splits it. */
static void prefetch_ranges(const struct elf_object *elf, struct coldstart_file *file)
{
	uint64_t start = symbol_value(elf, "__linkopt_hot_start"), end = symbol_value(elf, "__linkopt_hot_end");
	uint64_t head_end = symbol_value(elf, "__linkopt_hot_head_end");
	uint64_t tail_start = symbol_value(elf, "__linkopt_hot_tail_start");

	if (!symbol_value(elf, "linkopt_prefetch"))
		return;
	if (head_end && tail_start) {
		file->prefetch_start[file->prefetch_count] = start;
		file->prefetch_end[file->prefetch_count++] = head_end;
		file->prefetch_start[file->prefetch_count] = tail_start;
		file->prefetch_end[file->prefetch_count++] = end;
	} else {
		file->prefetch_start[file->prefetch_count] = start;
		file->prefetch_end[file->prefetch_count++] = end;
	}
	/* an empty part (all the traced code at the end of .text) is no
	   madvise, as prefetch() skips it */
	for (size_t i = 0, k = 0, n = file->prefetch_count; i < n; i++) {
		if (!file->prefetch_start[i] || file->prefetch_end[i] <= file->prefetch_start[i]) {
			file->prefetch_count--;
			continue;
		}
		file->prefetch_start[k] = file->prefetch_start[i] & ~(uint64_t)(PAGE - 1);
		file->prefetch_end[k++] = (file->prefetch_end[i] + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	}
}

int coldstart_file_read(struct coldstart_file *file, const char *path, char **why)
{
	struct elf_object elf;
	void *data;
	size_t size;

	memset(file, 0, sizeof(*file));
	if (map_file(path, &data, &size, why) < 0)
		return -1;
	if (elfobj_open_linked(&elf, path, data, size, why) < 0) {
		munmap(data, size);
		return -1;
	}
	file->size = size;
	file->position_independent = elf.type == ET_DYN;
	if (!elfobj_build_id(&elf, file->build_id, sizeof(file->build_id)))
		file->build_id[0] = 0;
	file->segments = elfobj_segments(&elf, &file->segment_count, &file->table_offset, &file->table_size, why);
	prefetch_ranges(&elf, file);
	{
		struct cut cut = cut_read(&elf);

		file->cut_start = cut.start;
		file->cut_end = cut.end;
		file->cut_piece = cut.piece;
		file->cut_random_start = cut.random_start;
		file->cut_random_end = cut.random_end;
	}
	elfobj_close(&elf);
	munmap(data, size);
	if (*why)
		return -1;
	return 0;
}

void coldstart_file_free(struct coldstart_file *file)
{
	free(file->segments);
	memset(file, 0, sizeof(*file));
}

/* madvise(MADV_WILLNEED) of the file's prefetch ranges, in the vmas that
   map them, COLDSTART_PREFETCH_PIECE bytes at a time as linkopt-prefetch.o
   asks. */
static void prefetch(struct readahead *ra, const struct coldstart_file *file, const struct elf_segment *const *of_vma,
		     size_t n)
{
	const uint64_t piece = COLDSTART_PREFETCH_PIECE > PAGE ? COLDSTART_PREFETCH_PIECE / PAGE : 1;
	size_t i, v;

	for (i = 0; i < file->prefetch_count; i++)
		for (v = 0; v < n; v++) {
			const struct elf_segment *s = of_vma[v];
			uint64_t start = file->prefetch_start[i], end = file->prefetch_end[i], first, pages, at;

			if (start < s->address / PAGE * PAGE || start >= s->address + s->memory_size)
				continue;
			first = start / PAGE - s->address / PAGE + s->offset / PAGE;
			pages = (end - start) / PAGE;
			for (at = 0; at < pages; at += piece)
				readahead_willneed(ra, first + at, pages - at < piece ? pages - at : piece,
						   COLDSTART_IO_PAGES);
			break;
		}
}

/* linkopt-prefetch.o's constructor: its cut, its advice, then its
   prefetch. */
static void constructor(struct readahead *ra, const struct coldstart_file *file, const struct elf_segment *const *of_vma,
			size_t n)
{
	if (file->cut_piece >= PAGE) {
		readahead_cut(ra, file->cut_start / PAGE, (file->cut_end - file->cut_start) / PAGE, file->cut_piece / PAGE,
			      true);
		if (file->cut_random_end > file->cut_random_start)
			readahead_random(ra, file->cut_random_start / PAGE,
					 (file->cut_random_end - file->cut_random_start) / PAGE);
	}
	prefetch(ra, file, of_vma, n);
}

static struct coldstart_reads replay(const struct coldstart_file *file, bool program, const uint64_t *addresses,
				     size_t count, unsigned long read_ahead_kb, bool list, size_t prefetch_at)
{
	struct readahead_vma *vmas = xcalloc(file->segment_count ? file->segment_count : 1, sizeof(*vmas));
	const struct elf_segment **of_vma = xcalloc(file->segment_count ? file->segment_count : 1, sizeof(*of_vma));
	struct coldstart_reads reads = { 0 };
	struct readahead *ra;
	size_t n = 0, i, v;

	for (i = 0; i < file->segment_count; i++) {
		const struct elf_segment *s = &file->segments[i];

		if (s->type != PT_LOAD || !s->file_size)
			continue;
		vmas[n].file_page = s->offset / PAGE;
		vmas[n].pages = (s->offset + s->file_size + PAGE - 1) / PAGE - s->offset / PAGE;
		vmas[n].virtual_page = s->address / PAGE;
		vmas[n].exec = s->flags & PF_X;
		of_vma[n++] = s;
	}
	ra = readahead_new((file->size + PAGE - 1) / PAGE, read_ahead_kb / 4, vmas, n);
	if (program) {
		readahead_read(ra, 0, BINPRM_BUF_SIZE);
		readahead_read(ra, file->table_offset, file->table_size);
		for (i = 0; i < file->segment_count; i++)
			if (file->segments[i].type == PT_INTERP)
				readahead_read(ra, file->segments[i].offset, file->segments[i].file_size);
		/* padzero: the kernel clears the tail of the last file page of a
		   segment that goes on as .bss */
		for (v = 0; v < n; v++) {
			const struct elf_segment *s = of_vma[v];

			if (s->memory_size > s->file_size && (s->address + s->file_size) % PAGE)
				readahead_touch(ra, v, (s->offset + s->file_size) / PAGE, true);
		}
	} else {
		readahead_read(ra, 0, LD_SO_FIRST_READ);
		if (file->table_offset + file->table_size > LD_SO_FIRST_READ)
			readahead_read(ra, file->table_offset, file->table_size);
	}
	for (i = 0; i < count; i++) {
		if (i == prefetch_at)
			constructor(ra, file, of_vma, n);
		for (v = 0; v < n; v++) {
			const struct elf_segment *s = of_vma[v];

			if (addresses[i] >= s->address / PAGE * PAGE && addresses[i] < s->address + s->memory_size) {
				readahead_touch(ra, readahead_vma_at(ra, addresses[i] / PAGE),
						addresses[i] / PAGE - s->address / PAGE + s->offset / PAGE, false);
				break;
			}
		}
	}
	if (prefetch_at != COLDSTART_NO_PREFETCH && prefetch_at >= count)
		constructor(ra, file, of_vma, n);
	reads.pages = readahead_pages_read(ra);
	reads.requests = readahead_requests(ra);
	if (list) {
		size_t made_count;
		const struct readahead_request *made = readahead_request_list(ra, &made_count);

		reads.list = xmalloc((made_count ? made_count : 1) * sizeof(*reads.list));
		memcpy(reads.list, made, made_count * sizeof(*made));
	}
	readahead_free(ra);
	free(vmas);
	free(of_vma);
	return reads;
}

struct coldstart_reads coldstart_replay(const struct coldstart_file *file, bool program, const uint64_t *addresses,
					size_t count, unsigned long read_ahead_kb)
{
	return replay(file, program, addresses, count, read_ahead_kb, false, COLDSTART_NO_PREFETCH);
}

struct coldstart_reads coldstart_replay_at(const struct coldstart_file *file, bool program, const uint64_t *addresses,
					   size_t count, unsigned long read_ahead_kb, size_t prefetch_at)
{
	return replay(file, program, addresses, count, read_ahead_kb, false, prefetch_at);
}

struct coldstart_reads coldstart_replay_requests_at(const struct coldstart_file *file, bool program,
						    const uint64_t *addresses, size_t count,
						    unsigned long read_ahead_kb, size_t prefetch_at)
{
	return replay(file, program, addresses, count, read_ahead_kb, true, prefetch_at);
}

uint64_t *coldstart_trace_touches(const struct trace *t, const struct trace_object *o,
				  const struct coldstart_file *file, size_t *count, size_t *prefetch_at)
{
	uint64_t *addresses = NULL;
	size_t k, n = 0, capacity = 0;

	bool constructor = file->prefetch_count || file->cut_piece;

	*prefetch_at = constructor ? 0 : COLDSTART_NO_PREFETCH;
	for (k = 0; k < t->event_count; k++) {
		const struct trace_event *e = &t->events[k];

		/* linkopt-prefetch.o's constructor: its madvise reads the
		   traced code from there */
		if (constructor && e->kind == TRACE_FUNCTION && e->symbol &&
		    !strcmp(e->symbol, "linkopt_prefetch") && trace_object_holds(o, e->address))
			*prefetch_at = n;
		if ((e->kind == TRACE_CODE || e->kind == TRACE_DATA) && trace_object_at(t, e->address, e->size) == o)
			*ARRAY_PUSH(addresses, n, capacity) = e->address - o->base;
	}
	*count = n;
	return addresses;
}

struct coldstart_reads coldstart_replay_requests(const struct coldstart_file *file, bool program,
						 const uint64_t *addresses, size_t count, unsigned long read_ahead_kb)
{
	return replay(file, program, addresses, count, read_ahead_kb, true, COLDSTART_NO_PREFETCH);
}
