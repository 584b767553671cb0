#define _GNU_SOURCE
#include "pagecache.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* Opens path for reading, never blocking (a FIFO would wait for a writer),
   and checks that it is a regular file; the descriptor, or -1 with *why. */
static int open_regular(const char *path, struct stat *st, char **why)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || fstat(fd, st) < 0) {
		*why = xasprintf("%s: cannot open: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		*why = xasprintf("%s: not a regular file (%s): only a regular file's pages are read from a "
				 "device into the page cache", path, pagecache_file_type(st->st_mode));
		close(fd);
		return -1;
	}
	return fd;
}

const char *pagecache_file_type(unsigned mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISDIR(mode) ? "a folder" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : S_ISLNK(mode) ? "a symbolic link" :
	       S_ISREG(mode) ? "a regular file" : "not a file";
}

/* Resident pages of the open file fd (size bytes); -1 with *why. */
static long resident_of(int fd, const char *path, off_t size, char **why)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = (size + page - 1) / page, i;
	unsigned char *vec;
	long resident = 0;
	void *map;

	if (size == 0)
		return 0;
	/* a mapping reads nothing by itself: mincore only looks */
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		*why = xasprintf("%s: mmap failed: %s", path, strerror(errno));
		return -1;
	}
	vec = xmalloc(pages);
	if (mincore(map, size, vec) < 0) {
		*why = xasprintf("%s: mincore failed: %s", path, strerror(errno));
		munmap(map, size);
		free(vec);
		return -1;
	}
	for (i = 0; i < pages; i++)
		resident += vec[i] & 1;
	munmap(map, size);
	free(vec);
	return resident;
}

/* Why pages of st's file stayed after DONTNEED: a file system that keeps
   them, or the processes that map it; a new string. */
static char *why_resident(int fd, const struct stat *st)
{
	struct statfs fs;
	char *mappers;

	if (fstatfs(fd, &fs) == 0 && ((unsigned long)fs.f_type == TMPFS_MAGIC || (unsigned long)fs.f_type == RAMFS_MAGIC))
		return xstrdup("it is on a tmpfs or ramfs, where a file's pages are the file: nothing is read "
			       "at a cold start");
	mappers = pagecache_mappers(st->st_dev, st->st_ino, 4);
	if (mappers) {
		char *text = xasprintf("mapped by %s; a mapped page is never evicted: end %s or measure a "
				       "copy", mappers, strchr(mappers, ',') ? "them" : "it");

		free(mappers);
		return text;
	}
	return xstrdup("no process maps it: dirty, locked or in use by the kernel");
}

int pagecache_evict(const char *path, char **why)
{
	long page = sysconf(_SC_PAGESIZE), resident = 0;
	struct stat st;
	int fd = open_regular(path, &st, why), err = 0, attempt;

	if (fd < 0)
		return -1;
	/* a dirty page stays: after the first try, write them (a file nobody
	   wrote has none, and fdatasync would flush the disk's cache for
	   nothing); a page another task holds for a moment stays too: try
	   again, a little later each time */
	for (attempt = 0; attempt < 10; attempt++) {
		if (attempt == 1)
			fdatasync(fd);
		if (attempt > 1)
			nanosleep(&(struct timespec){ .tv_nsec = 20000000L * attempt }, NULL);
		err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (err) {
			*why = xasprintf("%s: posix_fadvise failed: %s", path, strerror(err));
			close(fd);
			return -1;
		}
		resident = resident_of(fd, path, st.st_size, why);
		if (resident <= 0)
			break;
	}
	if (resident > 0) {
		char *because = why_resident(fd, &st);

		*why = xasprintf("%s: %ld of its %lld pages stay in the page cache after posix_fadvise(DONTNEED): "
				 "%s; a cold run cannot be measured", path, resident,
				 (long long)((st.st_size + page - 1) / page), because);
		free(because);
	}
	close(fd);
	return resident == 0 ? 0 : -1;
}

char *pagecache_mappers(dev_t dev, ino_t ino, size_t most)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	char *list = NULL;
	size_t found = 0;
	pid_t self = getpid();

	if (!proc)
		return NULL;
	while ((e = readdir(proc))) {
		char path[64], line[1024], comm[64] = "?";
		unsigned long maj, min, inode;
		bool maps = false;
		FILE *f;
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
		if (!(f = fopen(path, "r")))
			continue;
		while (!maps && fgets(line, sizeof(line), f))
			maps = sscanf(line, "%*s %*s %*s %lx:%lx %lu", &maj, &min, &inode) == 3 && inode == ino &&
			       maj == major(dev) && min == minor(dev);
		fclose(f);
		if (!maps)
			continue;
		if (found < most) {
			char *more;

			snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
			if ((f = fopen(path, "r"))) {
				if (fgets(comm, sizeof(comm), f))
					comm[strcspn(comm, "\n")] = '\0';
				fclose(f);
			}
			more = xasprintf("%s%sprocess %ld (%s)", list ? list : "", list ? ", " : "", pid, comm);
			free(list);
			list = more;
		}
		found++;
	}
	closedir(proc);
	if (found > most) {
		char *more = xasprintf("%s and %zu more", list, found - most);

		free(list);
		list = more;
	}
	return list;
}

int pagecache_resident(const char *path, size_t *resident, size_t *total, char **why)
{
	long page = sysconf(_SC_PAGESIZE), got;
	struct stat st;
	int fd = open_regular(path, &st, why);

	*resident = *total = 0;
	if (fd < 0)
		return -1;
	got = resident_of(fd, path, st.st_size, why);
	close(fd);
	if (got < 0)
		return -1;
	*resident = got;
	*total = (st.st_size + page - 1) / page;
	return 0;
}

#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif

/* cachestat(2)'s arguments and result (linux/mman.h, Linux 6.5). */
struct cachestat_range_arg {
	uint64_t off, len;
};
struct cachestat_result {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

int pagecache_settle(const char *path, long max_ms, size_t *resident, size_t *cached, char **why)
{
	const struct timespec tick = { 0, 1000000 };
	struct cachestat_range_arg range = { 0, 0 };   /* len 0: to the end of the file */
	struct cachestat_result cs;
	struct stat st;
	int fd = open_regular(path, &st, why), status = -1;
	long waited, got;

	*resident = *cached = 0;
	if (fd < 0)
		return -1;
	for (waited = 0;; waited++) {
		if ((got = resident_of(fd, path, st.st_size, why)) < 0)
			break;
		*resident = got;
		if (syscall(SYS_cachestat, fd, &range, &cs, 0) < 0) {
			if (errno == ENOSYS) {
				*cached = *resident;
				status = 0;
			} else {
				*why = xasprintf("%s: cachestat failed: %s", path, strerror(errno));
			}
			break;
		}
		*cached = cs.nr_cache;
		if (*cached <= *resident) {
			status = 0;
			break;
		}
		if (waited >= max_ms) {
			status = 1;
			break;
		}
		nanosleep(&tick, NULL);
	}
	close(fd);
	return status;
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
