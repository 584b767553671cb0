#include "cold.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Sectors a run may read beyond the files' pages: a metadata block (an
   extent or directory block the file system had dropped). */
#define METADATA_SECTORS 8

/* How long the reads a run left in flight may take to complete: a program
   that asks for pages ahead (madvise or fadvise WILLNEED) and exits before
   they come in still reads them, but mincore counts a page only once its
   read completed (pagecache_settle).  Counted at once, on a loaded machine
   whose loop device's worker waits for a core, a cold start of a program
   whose linkopt-prefetch.o asks for 200 KiB it never runs came 19 pages
   short (CI, 2026-12-06); t-pfstat-cold-in-flight slows the reads down. */
#define SETTLE_MS 10000

int cold_prepare(struct cold_set *set, const char *const *paths, size_t n, bool own_device, char **why)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i, k;

	memset(set, 0, sizeof(*set));
	set->files = xcalloc(n + 1, sizeof(*set->files));
	set->devices = xcalloc(n + 1, sizeof(*set->devices));
	for (i = 0; i < n; i++) {
		struct cold_file *f = &set->files[i];
		struct pagecache_device dev;
		struct stat st;
		char *reason = NULL;

		f->path = paths[i];
		if (stat(f->path, &st) < 0) {
			*why = xasprintf("%s: cannot stat: %s", f->path, strerror(errno));
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			*why = xasprintf("%s: --cold needs a regular file, this is %s: only a regular file's pages are "
					 "read from a device into the page cache", f->path, pagecache_file_type(st.st_mode));
			return -1;
		}
		for (k = 0; k < i; k++) {
			if (set->files[k].dev == st.st_dev && set->files[k].ino == st.st_ino) {
				*why = xasprintf("%s: the same file as %s, given to --cold twice", f->path,
						 set->files[k].path);
				return -1;
			}
		}
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->size = st.st_size;
		f->pages = (st.st_size + page - 1) / page;
		f->device = COLD_NO_DEVICE;
		set->nfiles++;
		if (pagecache_device_of(f->path, &dev, &reason) < 0) {
			warn("%s; its device's read requests are not counted", reason);
			free(reason);
			continue;
		}
		for (k = 0; k < set->ndevices; k++)
			if (!strcmp(set->devices[k].dev.stat_path, dev.stat_path))
				break;
		if (k == set->ndevices) {
			struct cold_device *d = &set->devices[set->ndevices++];

			d->dev = dev;
			d->read_ahead_kb = pagecache_read_ahead_kb(&d->dev, &reason);
			if (d->read_ahead_kb < 0) {
				warn("%s", reason);
				free(reason);
			}
		}
		f->device = k;
		if (set->devices[k].read_ahead_kb >= 0 &&
		    (unsigned long long)set->devices[k].read_ahead_kb * 1024 >= (unsigned long long)f->pages * page) {
			if (own_device)
				warn("%s: its loop device reads ahead %ld KiB, as much as the whole file (%lld KiB): a "
				     "cold start reads it whole whatever its layout; a smaller --read-ahead-kb "
				     "shows what layout does", f->path, set->devices[k].read_ahead_kb,
				     (long long)f->pages * page / 1024);
			else
				warn("%s: its device (%s) reads ahead %ld KiB, as much as the whole file (%lld KiB): a "
				     "cold start reads it whole whatever its layout; measure with "
				     "--read-ahead-kb=128 (the Linux default) to see what layout does", f->path,
				     set->devices[k].dev.name, set->devices[k].read_ahead_kb,
				     (long long)f->pages * page / 1024);
		}
	}
	return 0;
}

int cold_before_run(struct cold_set *set, char **why)
{
	size_t i;

	for (i = 0; i < set->nfiles; i++)
		if (pagecache_evict(set->files[i].path, why) < 0)
			return -1;
	for (i = 0; i < set->ndevices; i++)
		if (pagecache_device_reads(&set->devices[i].dev, &set->devices[i].before, why) < 0)
			return -1;
	return 0;
}

int cold_after_run(struct cold_set *set, double *pages, struct cold_reads *reads, char **why)
{
	long page = sysconf(_SC_PAGESIZE);
	double *came_in = xcalloc(set->ndevices + 1, sizeof(double));
	size_t i;
	int status = -1;

	for (i = 0; i < set->nfiles; i++) {
		struct cold_file *f = &set->files[i];
		size_t resident, cached;
		int settled;
		struct stat st;

		if (stat(f->path, &st) < 0) {
			*why = xasprintf("%s: cannot stat after the run: %s", f->path, strerror(errno));
			goto out;
		}
		if (st.st_dev != f->dev || st.st_ino != f->ino || st.st_size != f->size) {
			*why = xasprintf("%s: %s during the run: its pages read would not be the measured file's", f->path,
					 st.st_dev != f->dev || st.st_ino != f->ino ? "replaced by another file" :
					 "changed size");
			goto out;
		}
		if ((settled = pagecache_settle(f->path, SETTLE_MS, &resident, &cached, why)) < 0)
			goto out;
		if (settled > 0) {
			*why = xasprintf("%s: %zu of its %zu pages in the page cache still being read %d s after the run: "
					 "a count now would be short", f->path, cached - resident, cached, SETTLE_MS / 1000);
			goto out;
		}
		pages[i] = resident;
		if (f->device != COLD_NO_DEVICE)
			came_in[f->device] += (double)resident * page / 512;
	}
	for (i = 0; i < set->ndevices; i++) {
		struct cold_device *d = &set->devices[i];
		struct pagecache_reads after;

		if (pagecache_device_reads(&d->dev, &after, why) < 0)
			goto out;
		/* a file opened during the run read ahead as much as the device
		   said then: what it says now must be what it said before */
		if (d->read_ahead_kb >= 0) {
			char *ignored = NULL;
			long now = pagecache_read_ahead_kb(&d->dev, &ignored);

			free(ignored);
			if (now >= 0 && now != d->read_ahead_kb) {
				*why = xasprintf("%s: its read-ahead changed during the run, from %ld KiB to %ld: "
						 "something else set it, and the pages read are not those of %ld KiB",
						 d->dev.name, d->read_ahead_kb, now, d->read_ahead_kb);
				goto out;
			}
		}
		reads[i].requests = (double)after.requests - (double)d->before.requests;
		reads[i].sectors = (double)after.sectors - (double)d->before.sectors;
		reads[i].others = 0;
		/* counters that went back (a device reset) are nobody's reads */
		if (reads[i].requests < 0 || reads[i].sectors < 0)
			reads[i].others = -1;
		else if (reads[i].sectors > came_in[i] + METADATA_SECTORS)
			reads[i].others = reads[i].sectors - came_in[i];
	}
	status = 0;
out:
	free(came_in);
	return status;
}

char *cold_device_files(const struct cold_set *set, size_t d)
{
	char *line = xstrdup(""), *more;
	size_t i;

	for (i = 0; i < set->nfiles; i++) {
		if (set->files[i].device != d)
			continue;
		more = xasprintf("%s%s%s", line, *line ? ", " : "", set->files[i].path);
		free(line);
		line = more;
	}
	return line;
}
