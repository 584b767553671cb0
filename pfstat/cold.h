/* cold: the --cold files of a measurement.  Each is a regular file,
   evicted from the page cache before every run (and proven evicted), its
   pages read in counted after the run; the block devices under them count
   read requests and sectors for everything read from them, so a device's
   counts are given to its files only when they can be theirs: when the
   device read no more than the pages of those files that came in. */
#ifndef PFSTAT_COLD_H
#define PFSTAT_COLD_H

#include "pagecache.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define COLD_NO_DEVICE ((size_t)-1)

struct cold_file {
	const char *path;
	dev_t dev;                  /* the file's identity: a run must not replace it */
	ino_t ino;
	off_t size;
	size_t pages;               /* in the file */
	size_t device;              /* index in the set's devices, or COLD_NO_DEVICE */
};

struct cold_device {
	struct pagecache_device dev;
	long read_ahead_kb;         /* -1: unknown */
	struct pagecache_reads before; /* its counters when the run started */
};

struct cold_set {
	struct cold_file *files;
	size_t nfiles;
	struct cold_device *devices;
	size_t ndevices;
};

/* What one run read from one device. */
struct cold_reads {
	double requests, sectors;
	double others;              /* sectors beyond what its --cold files brought in (other
				       reads, a shared disk), or 0 when the counts can be theirs */
};

/* Fills set from paths: each a regular file (a FIFO is refused, never
   opened for long), none given twice, grouped by device; warns when a
   device reads ahead as much as a whole file (own_device: the read-ahead
   was chosen with --read-ahead-kb).  0, or -1 with *why. */
int cold_prepare(struct cold_set *set, const char *const *paths, size_t n, bool own_device, char **why);

/* Before a run: evicts every file and proves it (pagecache_evict), then
   reads the devices' counters.  0, or -1 with *why. */
int cold_before_run(struct cold_set *set, char **why);

/* After a run: pages[f] gets file f's pages now in the page cache, reads[d]
   what device d read since cold_before_run.  -1 with *why when a file was
   replaced or changed size during the run, or cannot be read. */
int cold_after_run(struct cold_set *set, double *pages, struct cold_reads *reads, char **why);

/* The files of device d as one line, "prog, prog.ordered"; a new string. */
char *cold_device_files(const struct cold_set *set, size_t d);

#endif
