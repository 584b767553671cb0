/* pagecache: a file's pages in the kernel's page cache, and the block
   device under it: evicting a file (a cold start), counting its resident
   pages (mincore), the device's read counters and its read-ahead. */
#ifndef LINKOPT_PAGECACHE_H
#define LINKOPT_PAGECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The block device a file lives on, as /sys/dev/block names it. */
struct pagecache_device {
	char name[64];           /* "vda", "loop3" (the whole disk of a partition) */
	char stat_path[256];     /* /sys/dev/block/MAJ:MIN/stat */
	char read_ahead_path[256]; /* the disk's queue/read_ahead_kb */
};

/* The reads a device completed, from its stat file. */
struct pagecache_reads {
	uint64_t requests;       /* reads completed */
	uint64_t sectors;        /* 512-byte sectors read */
};

/* Drops path's pages from the page cache (fdatasync first, then
   posix_fadvise DONTNEED) and proves it with mincore, trying again for a
   moment while pages stay.  0, or -1 with *why: not a regular file (never
   blocking on a FIFO), a call that failed, or how many pages stayed and why
   (the processes that map the file, a tmpfs). */
int pagecache_evict(const char *path, char **why);

/* Sets *resident and *total to path's pages in the page cache and in the
   file (mincore over a mapping of it).  0, or -1 with *why (not a regular
   file, never blocking on a FIFO). */
int pagecache_resident(const char *path, size_t *resident, size_t *total, char **why);

/* Waits up to max_ms milliseconds until every page of path in the page
   cache has been read: a run that asked for pages ahead (madvise, fadvise
   WILLNEED) and exited before they came in still reads them, but mincore
   counts a page only once its read completed, and cachestat(2) counts it
   from the moment it is in the cache.  Then *resident is mincore's count.
   0 once the two agree, 1 when they still did not at the end (*cached
   says how many the cache holds), -1 with *why.  Without cachestat (Linux
   before 6.5), *resident at once and 0. */
int pagecache_settle(const char *path, long max_ms, size_t *resident, size_t *cached, char **why);

/* The processes (other than this one) that map the file dev:ino, from
   /proc/PID/maps: "process 12 (prog), process 40 (sh)", the first most of
   them and "and N more"; a new string, or NULL when none does. */
char *pagecache_mappers(dev_t dev, ino_t ino, size_t most);

/* st_mode's kind of file, for messages: "a FIFO", "a folder". */
const char *pagecache_file_type(unsigned mode);

/* Finds the device path lives on.  0, or -1 with *why (a file on tmpfs or
   overlay has no block device). */
int pagecache_device_of(const char *path, struct pagecache_device *dev, char **why);

/* Reads dev's counters.  0, or -1 with *why. */
int pagecache_device_reads(const struct pagecache_device *dev, struct pagecache_reads *reads, char **why);

/* dev's read-ahead in KiB, or -1 with *why. */
long pagecache_read_ahead_kb(const struct pagecache_device *dev, char **why);

/* Sets dev's read-ahead (root only).  0, or -1 with *why. */
int pagecache_set_read_ahead_kb(const struct pagecache_device *dev, long kb, char **why);

#endif
