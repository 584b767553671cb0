#define _GNU_SOURCE
#include "pagecache.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int pagecache_evict(const char *path, char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0) {
		*why = xasprintf("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	/* dirty pages would stay: write them first (a read-only file has none) */
	fdatasync(fd);
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (err) {
		*why = xasprintf("%s: posix_fadvise failed: %s", path, strerror(err));
		return -1;
	}
	return 0;
}

int pagecache_resident(const char *path, size_t *resident, size_t *total, char **why)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	unsigned char *vec;
	void *map;
	size_t pages, i;

	*resident = *total = 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		*why = xasprintf("%s: cannot open: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	pages = (st.st_size + page - 1) / page;
	/* a mapping reads nothing by itself: mincore only looks */
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		*why = xasprintf("%s: mmap failed: %s", path, strerror(errno));
		return -1;
	}
	vec = xmalloc(pages);
	if (mincore(map, st.st_size, vec) < 0) {
		*why = xasprintf("%s: mincore failed: %s", path, strerror(errno));
		munmap(map, st.st_size);
		free(vec);
		return -1;
	}
	for (i = 0; i < pages; i++)
		*resident += vec[i] & 1;
	*total = pages;
	munmap(map, st.st_size);
	free(vec);
	return 0;
}

int pagecache_device_of(const char *path, struct pagecache_device *dev, char **why)
{
	char link[64], target[512], *slash;
	struct stat st;
	ssize_t n;

	memset(dev, 0, sizeof(*dev));
	if (stat(path, &st) < 0) {
		*why = xasprintf("%s: cannot stat: %s", path, strerror(errno));
		return -1;
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", (unsigned)major(st.st_dev), (unsigned)minor(st.st_dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0) {
		*why = xasprintf("%s: on no block device (%u:%u: a tmpfs or an overlay?): %s", path, major(st.st_dev),
				 minor(st.st_dev), strerror(errno));
		return -1;
	}
	target[n] = '\0';
	snprintf(dev->stat_path, sizeof(dev->stat_path), "%s/stat", link);
	/* a partition's queue settings are its disk's: the folder above it */
	snprintf(dev->read_ahead_path, sizeof(dev->read_ahead_path), "%s/queue/read_ahead_kb", link);
	if (access(dev->read_ahead_path, R_OK) < 0)
		snprintf(dev->read_ahead_path, sizeof(dev->read_ahead_path), "%s/../queue/read_ahead_kb", link);
	slash = strrchr(target, '/');
	snprintf(dev->name, sizeof(dev->name), "%.63s", slash ? slash + 1 : target);
	return 0;
}

int pagecache_device_reads(const struct pagecache_device *dev, struct pagecache_reads *reads, char **why)
{
	FILE *f = fopen(dev->stat_path, "r");
	uint64_t merged;
	int got;

	if (!f) {
		*why = xasprintf("%s: cannot open: %s", dev->stat_path, strerror(errno));
		return -1;
	}
	got = fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64, &reads->requests, &merged, &reads->sectors);
	fclose(f);
	if (got != 3) {
		*why = xasprintf("%s: not a block device's stat file", dev->stat_path);
		return -1;
	}
	return 0;
}

long pagecache_read_ahead_kb(const struct pagecache_device *dev, char **why)
{
	FILE *f = fopen(dev->read_ahead_path, "r");
	long kb = -1;

	if (!f || fscanf(f, "%ld", &kb) != 1) {
		*why = xasprintf("%s: cannot read: %s", dev->read_ahead_path, f ? "not a number" : strerror(errno));
		kb = -1;
	}
	if (f)
		fclose(f);
	return kb;
}

int pagecache_set_read_ahead_kb(const struct pagecache_device *dev, long kb, char **why)
{
	FILE *f = fopen(dev->read_ahead_path, "w");
	bool ok = f && fprintf(f, "%ld\n", kb) > 0;

	if (f && fclose(f) != 0)
		ok = false;
	if (!ok) {
		*why = xasprintf("%s: cannot write: %s", dev->read_ahead_path, strerror(errno));
		return -1;
	}
	return 0;
}
