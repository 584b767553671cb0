/* coldstart [--evict=OTHER]... [--block-stat=PATH] [--map] FILE -- COMMAND...:
   drops FILE's pages (and each OTHER's) from the page cache (fdatasync,
   then posix_fadvise DONTNEED), runs COMMAND (stdin passed on, stdout to
   /dev/null), and prints one line:

       WALL_US RESIDENT TOTAL [READS SECTORS]

   the wall time of the run in microseconds, how many of FILE's pages are
   resident afterwards (mincore: what the run read from disk), FILE's size
   in pages, and with --block-stat (a block device's /sys/block/NAME/stat)
   the reads it completed and the 512-byte sectors it read during the run.
   With --map a second line lists the resident pages of FILE as ranges
   ("map 0-3 12-43 ..."), page numbers from 0.  Before it counts, it waits
   (up to 10 s) until every page of FILE in the page cache has been read
   (cachestat(2) against mincore): pages the command asked for ahead and
   did not wait for are still read, and mincore counts a page only once
   its read completed (pfstat --cold does the same).  Exit status: 0, 1
   when the command failed or a file could not be handled, 2 on wrong
   usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr, "usage: coldstart [--evict=OTHER]... [--block-stat=PATH] [--map] FILE -- COMMAND...\n");
	exit(2);
}

static int evict(const char *path)
{
	int fd = open(path, O_RDONLY), err;

	if (fd < 0) {
		fprintf(stderr, "coldstart: %s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	/* DONTNEED leaves dirty pages alone: write them first */
	if (fdatasync(fd) < 0 && errno != EINVAL) {
		fprintf(stderr, "coldstart: %s: fdatasync failed: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (err) {
		fprintf(stderr, "coldstart: %s: posix_fadvise failed: %s\n", path, strerror(err));
		return -1;
	}
	return 0;
}

/* The resident flags of path's pages (a new array of *pages bytes), or NULL. */
static unsigned char *resident_vector(const char *path, long *pages)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *map = MAP_FAILED;
	unsigned char *vec = NULL;
	long page = sysconf(_SC_PAGESIZE);

	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	*pages = (st.st_size + page - 1) / page;
	vec = calloc(*pages ? *pages : 1, 1);
	if (!vec)
		goto fail;
	if (st.st_size) {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED || mincore(map, st.st_size, vec) < 0)
			goto fail;
		munmap(map, st.st_size);
	}
	close(fd);
	return vec;
fail:
	fprintf(stderr, "coldstart: %s: cannot count resident pages: %s\n", path, strerror(errno));
	if (map != MAP_FAILED)
		munmap(map, st.st_size);
	if (fd >= 0)
		close(fd);
	free(vec);
	return NULL;
}

#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif

/* Waits up to 10 s until the pages of path in the page cache (cachestat,
   Linux 6.5) are all resident for mincore, their reads completed; at once
   without cachestat.  0, or -1 (said) when they were not. */
static int settle(const char *path)
{
	struct { uint64_t off, len; } range = { 0, 0 };
	struct { uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted; } cs;
	const struct timespec tick = { 0, 1000000 };
	int fd = open(path, O_RDONLY), waited;

	if (fd < 0)
		return 0;       /* resident_vector says why */
	for (waited = 0; waited <= 10000; waited++) {
		long pages, resident = 0, p;
		unsigned char *vec = resident_vector(path, &pages);

		if (!vec || syscall(SYS_cachestat, fd, &range, &cs, 0) < 0) {
			free(vec);
			close(fd);
			return 0;
		}
		for (p = 0; p < pages; p++)
			resident += vec[p] & 1;
		free(vec);
		if (cs.nr_cache <= (uint64_t)resident) {
			close(fd);
			return 0;
		}
		nanosleep(&tick, NULL);
	}
	close(fd);
	fprintf(stderr, "coldstart: %s: pages still being read 10 s after the run\n", path);
	return -1;
}

/* Reads completed and sectors read from a /sys/block/NAME/stat file. */
static int block_stat(const char *path, unsigned long long *reads, unsigned long long *sectors)
{
	FILE *f = fopen(path, "r");
	unsigned long long merged;
	int n;

	if (!f) {
		fprintf(stderr, "coldstart: %s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	n = fscanf(f, "%llu %llu %llu", reads, &merged, sectors);
	fclose(f);
	if (n != 3) {
		fprintf(stderr, "coldstart: %s: not a block device's stat file\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *stat_path = NULL, *file;
	char **evicts = calloc(argc, sizeof(char *));
	int status, i, n_evict = 0, show_map = 0, failed = 0;
	unsigned long long reads0 = 0, sectors0 = 0, reads1 = 0, sectors1 = 0;
	struct timespec t0, t1;
	unsigned char *vec;
	long total = 0, resident = 0, p;
	pid_t pid;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2]; i++) {
		if (!strncmp(argv[i], "--evict=", 8))
			evicts[n_evict++] = argv[i] + 8;
		else if (!strncmp(argv[i], "--block-stat=", 13))
			stat_path = argv[i] + 13;
		else if (!strcmp(argv[i], "--map"))
			show_map = 1;
		else
			usage();
	}
	if (argc - i < 3 || strcmp(argv[i + 1], "--"))
		usage();
	file = argv[i];
	evicts[n_evict++] = (char *)file;
	while (n_evict--)
		if (evict(evicts[n_evict]) < 0)
			return 1;
	if (stat_path && block_stat(stat_path, &reads0, &sectors0) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "coldstart: fork failed: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execvp(argv[i + 2], argv + i + 2);
		fprintf(stderr, "coldstart: %s: cannot run: %s\n", argv[i + 2], strerror(errno));
		_exit(127);
	}
	waitpid(pid, &status, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (settle(file) < 0)
		return 1;
	if (stat_path && block_stat(stat_path, &reads1, &sectors1) < 0)
		return 1;
	vec = resident_vector(file, &total);
	if (!vec)
		return 1;
	for (p = 0; p < total; p++)
		resident += vec[p] & 1;
	printf("%ld %ld %ld", (long)((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000), resident,
	       total);
	if (stat_path)
		printf(" %llu %llu", reads1 - reads0, sectors1 - sectors0);
	putchar('\n');
	if (show_map) {
		long start = -1;

		fputs("map", stdout);
		for (p = 0; p <= total; p++) {
			int in = p < total && (vec[p] & 1);

			if (in && start < 0)
				start = p;
			if (!in && start >= 0) {
				printf(" %ld-%ld", start, p - 1);
				start = -1;
			}
		}
		putchar('\n');
	}
	free(vec);
	free(evicts);
	if (fflush(stdout) || ferror(stdout))
		failed = 1;
	return !failed && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
