/* readahead: what Linux reads of one file into its page cache while a
   program starts from it cold: the read(2) calls of execve or ld.so and
   the page faults of its mappings, replayed through the kernel's own
   rules (Linux 6.16 to 6.18, mm/filemap.c and mm/readahead.c, a file
   system with large folios such as ext4):
   - a fault on a page not cached: in an executable mapping, a window of
     read_ahead_kb from the faulting page forward, cut at the mapping's end
     (do_sync_mmap_readahead's VM_EXEC case); in any other mapping, a window
     of read_ahead_kb centred on it (mmap read-around), whose page
     read_ahead_kb / 4 from its end is marked PG_readahead;
   - a fault on a cached page that is marked: asynchronous readahead of
     the next window (page_cache_async_ra), each time with folios two
     orders larger, and with page_cache_next_miss's walk, which overshoots
     when it starts inside a multi-page folio;
   - fault-around (64 KiB, aligned on virtual addresses, cut at the
     mapping): cached pages that are not marked are mapped without a fault;
   - mmap_miss: after more than 100 misses not offset by hits, a fault
     reads its page alone;
   - madvise(MADV_RANDOM): in a mapping that is not executable a fault
     reads its page alone; in any, a marked page reads nothing more;
   - read(2): the initial window of page_cache_sync_ra (4 pages for a small
     read at 128 KiB), with its mark.
   A window never reads a page already cached: each run of new pages it
   reads is one request (a file whose blocks are contiguous on disk). */
#ifndef DEPORDER_READAHEAD_H
#define DEPORDER_READAHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One file-backed mapping of the file (a PT_LOAD segment as mapped). */
struct readahead_vma {
	uint64_t file_page;      /* the first page of the file it maps */
	uint64_t pages;          /* how many pages of the file it maps */
	uint64_t virtual_page;   /* its start address / page size */
	bool exec;
	bool random;             /* advised MADV_RANDOM (VM_RAND_READ) */
};

struct readahead;

/* Why a request was made. */
enum readahead_cause {
	READAHEAD_READ,        /* a read(2) of the page (execve's, ld.so's) */
	READAHEAD_FAULT,       /* a fault on the page, not cached: the window around it */
	READAHEAD_FAULT_CODE,  /* the same in an executable mapping: the window from it on */
	READAHEAD_MARKED,      /* the page was reached, cached and marked: the next window */
	READAHEAD_ALONE,       /* a fault read the page alone (mmap_miss, or no read-ahead) */
	READAHEAD_WILLNEED,    /* madvise(MADV_WILLNEED) of the range (linkopt-prefetch.o) */
};

/* One read request: pages first to first + pages - 1, for cause at page. */
struct readahead_request {
	uint64_t first, pages;
	enum readahead_cause cause;
	uint64_t page;
};

/* A file of file_pages pages, none cached, read with read_ahead_pages of
   read-ahead (read_ahead_kb / 4), mapped by vmas (copied). */
struct readahead *readahead_new(uint64_t file_pages, unsigned long read_ahead_pages, const struct readahead_vma *vmas,
				size_t vma_count);

/* madvise(MADV_WILLNEED) of a mapping of pages [first, first + count)
   of the file (vfs_fadvise, force_page_cache_ra): those not cached are
   read as they are, none marked, 2 MiB at a time, at most the larger of
   io_pages (the device's max_sectors_kb / 4) and the read-ahead. */
void readahead_willneed(struct readahead *ra, uint64_t first, uint64_t count, uint64_t io_pages);

/* A read(2) of count bytes at offset, through the page cache. */
void readahead_read(struct readahead *ra, uint64_t offset, uint64_t count);

/* A first access to file page through mapping vma (an index of the vmas
   given to readahead_new): nothing when the page is already mapped there,
   else a fault (write: a write to a private mapping, which faults around
   nothing).  A page outside the mapping is ignored. */
void readahead_touch(struct readahead *ra, size_t vma, uint64_t page, bool write);

/* Every mapping that holds virtual pages [first, first + pages) cut at
   first, at first + pages and every piece pages from first: each piece a
   mapping of its own, what it had mapped kept (linkopt-prefetch.o's cut,
   lib/cut.h); with advise, the pieces 0, 2, 4... advised MADV_RANDOM as
   the cut advises them at a cold start (in code, a marked page there
   then reads nothing more).  The indexes of readahead_touch change: find
   them again with readahead_vma_at. */
void readahead_cut(struct readahead *ra, uint64_t first, uint64_t pages, uint64_t piece, bool advise);

/* madvise(MADV_RANDOM) of virtual pages [first, first + pages): the
   mappings there cut at its bounds (as readahead_cut) and advised: a
   fault on a page not cached in one that is not executable reads the
   page alone, and a cached page marked for read-ahead reads nothing
   more (do_sync_mmap_readahead and do_async_mmap_readahead); in an
   executable one a fault reads forward from its page as if not advised
   (Linux 6.16 to 6.18), and a marked page reads nothing more. */
void readahead_random(struct readahead *ra, uint64_t first, uint64_t pages);

/* The index of the mapping that holds virtual page, or the count of
   mappings when none does. */
size_t readahead_vma_at(const struct readahead *ra, uint64_t virtual_page);

/* Pages of the file read so far. */
uint64_t readahead_pages_read(const struct readahead *ra);

/* Read requests made so far (runs of contiguous pages read at once). */
uint64_t readahead_requests(const struct readahead *ra);

/* The requests made so far, in order (*count of them; valid until the
   next call on ra). */
const struct readahead_request *readahead_request_list(const struct readahead *ra, size_t *count);

/* The cause's name: read, fault, code-fault, marked, alone. */
const char *readahead_cause_name(enum readahead_cause cause);

/* True if the page has been read (is in the page cache). */
bool readahead_cached(const struct readahead *ra, uint64_t page);

/* Frees what readahead_new allocated; ra may be NULL. */
void readahead_free(struct readahead *ra);

#endif
