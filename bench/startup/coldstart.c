/* coldstart FILE -- COMMAND...: drops FILE's pages from the page cache
   (posix_fadvise DONTNEED), runs COMMAND (stdin passed on), and prints the
   wall time in microseconds and how many of FILE's pages are resident
   afterwards (mincore), i.e. what the run read from disk. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long resident_pages(const char *path, long *total)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	void *map;
	unsigned char *vec;
	long pages, i, n = 0, page = sysconf(_SC_PAGESIZE);

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	pages = (st.st_size + page - 1) / page;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(pages);
	if (map == MAP_FAILED || !vec || mincore(map, st.st_size, vec) < 0)
		return -1;
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	munmap(map, st.st_size);
	close(fd);
	free(vec);
	*total = pages;
	return n;
}

int main(int argc, char **argv)
{
	int fd, status;
	struct timespec t0, t1;
	pid_t pid;
	long total = 0, resident;

	if (argc < 4 || argv[2][0] != '-' || argv[2][1] != '-') {
		fprintf(stderr, "usage: coldstart FILE -- COMMAND...\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fdatasync(fd) < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	resident = resident_pages(argv[1], &total);
	printf("%ld %ld %ld\n", (long)((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000), resident,
	       total);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
