/* pfstat-probe: the programs the pfstat tests measure, one per mode.
     lines              count the lines and bytes of stdin: "N lines M bytes"
     touch N            write to N fresh pages of memory
     heap KIB           write to KIB KiB of fresh memory (a known resident set)
     read FILE          read FILE whole through a mapping, a byte a page
     map FILE S         map FILE, read it, say "ready", sleep S seconds
     daemon FILE S PIDS leave a process (its own session) that maps FILE for
                        S seconds, its pid appended to the file PIDS, and exit
     args ARG...        print each argument on a line of its own, in []
     write FILE         append a byte to FILE: "written", or why not */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static long read_mapped(const char *path, int keep_seconds)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	volatile unsigned char *p;
	long i, sum = 0;

	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		exit(1);
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	for (i = 0; i < st.st_size; i += 4096)
		sum += p[i];
	if (keep_seconds) {
		printf("ready\n");
		fflush(stdout);
		sleep(keep_seconds);
	}
	return sum;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long i;

	if (!strcmp(mode, "lines")) {
		char buf[4096];
		long lines = 0, bytes = 0;
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
			bytes += n;
			for (i = 0; i < (long)n; i++)
				lines += buf[i] == '\n';
		}
		printf("%ld lines %ld bytes\n", lines, bytes);
	} else if (!strcmp(mode, "touch") && argc > 2) {
		long pages = atol(argv[2]);
		char *m = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		for (i = 0; i < pages; i++)
			m[i * 4096] = 1;
	} else if (!strcmp(mode, "heap") && argc > 2) {
		long kib = atol(argv[2]);
		char *m = mmap(NULL, kib * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		memset(m, 1, kib * 1024);
	} else if (!strcmp(mode, "read") && argc > 2) {
		printf("%ld\n", read_mapped(argv[2], 0));
	} else if (!strcmp(mode, "map") && argc > 3) {
		read_mapped(argv[2], atoi(argv[3]));
	} else if (!strcmp(mode, "daemon") && argc > 4) {
		pid_t pid = fork();

		if (pid == 0) {
			FILE *pids = fopen(argv[4], "a");

			if (pids) {
				fprintf(pids, "%d\n", (int)getpid());
				fclose(pids);
			}
			setsid();
			freopen("/dev/null", "w", stdout);
			read_mapped(argv[2], atoi(argv[3]));
			_exit(0);
		}
		/* the daemon maps the file before the command ends */
		usleep(200000);
	} else if (!strcmp(mode, "args")) {
		for (i = 2; i < argc; i++)
			printf("[%s]\n", argv[i]);
	} else if (!strcmp(mode, "write") && argc > 2) {
		int fd = open(argv[2], O_WRONLY | O_APPEND);

		if (fd < 0 || write(fd, "x", 1) != 1)
			printf("not written: %s\n", strerror(errno));
		else
			printf("written\n");
	} else {
		fprintf(stderr, "pfstat-probe: unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
