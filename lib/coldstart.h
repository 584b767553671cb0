/* coldstart: the file pages a cold start of a traced object reads,
   replayed through the page cache model (readahead.h): the reads of its
   headers (execve's of a program: the first 256 bytes, the program
   headers, the interpreter's name; ld.so's of a shared library: the first
   832 bytes), the kernel's write to the page where a program's data
   segment meets its .bss (padzero: the trace cannot see it), then the
   first touches of its pages in the order the run made them, through the
   mappings of its PT_LOAD segments. */
#ifndef DEPORDER_COLDSTART_H
#define DEPORDER_COLDSTART_H

#include "elfobj.h"
#include "readahead.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What of a linked file decides what a cold start of it reads. */
struct coldstart_file {
	uint64_t size;                     /* bytes */
	struct elf_segment *segments;
	size_t segment_count;
	uint64_t table_offset, table_size; /* the program headers */
	bool position_independent;         /* ET_DYN: a PIE or a shared library */
	char build_id[129];                /* its GNU build-id in hex, "" when it has none */
	/* what linkopt-prefetch.o asks the kernel to read at start-up
	   (madvise MADV_WILLNEED), from the symbols deporder's script
	   defines: [start, end) virtual addresses, whole pages; none when
	   the file has no such symbols (not linked with it, or stripped) */
	uint64_t prefetch_start[2], prefetch_end[2];
	size_t prefetch_count;
	/* and what it cuts into mappings of cut_piece bytes each before
	   (lib/cut.h); cut_piece 0: nothing; and the read-only segment it
	   advises MADV_RANDOM (equal: none) */
	uint64_t cut_start, cut_end, cut_piece;
	uint64_t cut_random_start, cut_random_end;
};

/* The device's largest request as force_page_cache_ra takes it
   (bdi->io_pages: max_sectors_kb / 4): a loop device's 1280 KiB here.
   linkopt-prefetch.o asks in pieces of COLDSTART_PREFETCH_PIECE bytes
   (prefetch/prefetch.c's PIECE), which any device reads whole: what it
   reads does not depend on this figure. */
#define COLDSTART_IO_PAGES 320
#define COLDSTART_PREFETCH_PIECE 65536
/* coldstart_replay_at's prefetch_at when nothing is prefetched. */
#define COLDSTART_NO_PREFETCH ((size_t)-1)

/* Reads the program headers of the file at path; returns 0, or -1 with
   *why set (newly allocated). */
int coldstart_file_read(struct coldstart_file *file, const char *path, char **why);

/* Frees what coldstart_file_read allocated. */
void coldstart_file_free(struct coldstart_file *file);

struct coldstart_reads {
	uint64_t pages;          /* of the file, read into the page cache */
	uint64_t requests;       /* read requests: runs of pages read at once */
	struct readahead_request *list; /* coldstart_replay_requests': each request, in order
					   (requests of them; the caller frees it) */
};

/* A cold start of file (program: started by execve, else loaded by ld.so)
   whose run first touched the pages at addresses (virtual addresses of the
   link, in the order the run touched them), with read_ahead_kb of
   read-ahead. */
struct coldstart_reads coldstart_replay(const struct coldstart_file *file, bool program, const uint64_t *addresses,
					size_t count, unsigned long read_ahead_kb);

/* coldstart_replay, with the file's prefetch (prefetch_count ranges) done
   just before the touch of addresses[prefetch_at] (after the last when
   prefetch_at >= count; COLDSTART_NO_PREFETCH: none): linkopt-prefetch.o's
   constructor runs at that point. */
struct coldstart_reads coldstart_replay_at(const struct coldstart_file *file, bool program, const uint64_t *addresses,
					   size_t count, unsigned long read_ahead_kb, size_t prefetch_at);

/* The same, with the list of the requests and what made each. */
struct coldstart_reads coldstart_replay_requests(const struct coldstart_file *file, bool program,
						 const uint64_t *addresses, size_t count, unsigned long read_ahead_kb);
/* coldstart_replay_at, with the list of the requests. */
struct coldstart_reads coldstart_replay_requests_at(const struct coldstart_file *file, bool program,
						    const uint64_t *addresses, size_t count,
						    unsigned long read_ahead_kb, size_t prefetch_at);

struct trace;
struct trace_object;
/* The pages of object o (whose file is file) that trace t's run first
   touched (its C and D records), as addresses of the link, in the order of
   the run: a new array of *count (NULL when none).  *prefetch_at: the
   index of the touch before which linkopt-prefetch.o's constructor ran
   (its F record), 0 when the trace does not say, COLDSTART_NO_PREFETCH
   when the file has nothing to prefetch. */
uint64_t *coldstart_trace_touches(const struct trace *t, const struct trace_object *o,
				  const struct coldstart_file *file, size_t *count, size_t *prefetch_at);

#endif
