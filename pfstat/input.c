#define _GNU_SOURCE
#include "input.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum input_kind {
	INPUT_AS_IS,      /* closed, a device, or one run from a pipe */
	INPUT_REWOUND,    /* a regular file or block device, sought back each run */
	INPUT_REPLAYED,   /* a stream read whole into a memfd, a pipe per run */
	INPUT_NULL,       /* a terminal: /dev/null */
};

/* Most a stream may hold: more is likely endless (yes, /dev/zero). */
#define REPLAY_MAX (256ul << 20)

static enum input_kind kind = INPUT_AS_IS;
static off_t start_offset;    /* INPUT_REWOUND */
static int store = -1;        /* INPUT_REPLAYED: the memfd */
static unsigned long long stored;
static pid_t feeder;          /* the process writing the run's pipe, 0: none */
static char *description;
static const char *copy_of;   /* the --cold file whose copy descriptor 0 is */

/* A 64 KiB buffer of static storage: streams pass through it, never
   through the heap (whatever pfstat's memory holds when it forks, a run's
   maximum resident set starts from). */
static char chunk[65536];

/* Writes n bytes, through EINTR; false on failure. */
static bool write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t done = write(fd, p, n);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0)
			return false;
		p += done;
		n -= done;
	}
	return true;
}

/* Reads descriptor 0 to its end into the memfd; says once why it waits
   when nothing comes for 2 s. */
static int take_stream(const char *what, char **why)
{
	bool told = false;

	store = memfd_create("pfstat-stdin", MFD_CLOEXEC);
	if (store < 0) {
		*why = xasprintf("standard input: memfd_create failed: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		ssize_t got;
		int ready = poll(&pfd, 1, told ? -1 : 2000);

		if (proc_interrupted()) {
			*why = xstrdup("interrupted while reading standard input; nothing measured");
			return -1;
		}
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready == 0) {
			warn("standard input (%s): waiting for its end, to give every run the same input (give "
			     "< /dev/null when the command reads none)", what);
			told = true;
			continue;
		}
		got = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got < 0) {
			*why = xasprintf("standard input: read failed: %s", strerror(errno));
			return -1;
		}
		if (got == 0)
			break;
		if (stored + got > REPLAY_MAX) {
			*why = xasprintf("standard input (%s): more than %lu MiB: every run must read the same, and "
					 "pfstat keeps a stream to replay it; give a file (< FILE), which each run "
					 "reads from the start", what, REPLAY_MAX >> 20);
			return -1;
		}
		if (!write_all(store, chunk, got)) {
			*why = xasprintf("standard input: cannot keep it: write failed: %s", strerror(errno));
			return -1;
		}
		stored += got;
	}
	return 0;
}

static const char *stream_name(mode_t mode)
{
	return S_ISFIFO(mode) ? "a pipe" : S_ISSOCK(mode) ? "a socket" : "a stream";
}

int input_prepare(bool several, char **why)
{
	struct stat st;

	if (fstat(STDIN_FILENO, &st) < 0)
		return 0;
	if (isatty(STDIN_FILENO)) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, STDIN_FILENO) < 0) {
			*why = xasprintf("/dev/null: cannot open: %s", strerror(errno));
			return -1;
		}
		close(null);
		kind = INPUT_NULL;
		description = xstrdup("a terminal: each run reads /dev/null instead");
		return 0;
	}
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
		start_offset = lseek(STDIN_FILENO, 0, SEEK_CUR);
		if (start_offset >= 0) {
			kind = INPUT_REWOUND;
			if (S_ISREG(st.st_mode))
				description = xasprintf("a file%s%s%s: %lld bytes from offset %lld, the same to each run",
							copy_of ? " (" : "", copy_of ? copy_of : "",
							copy_of ? "'s copy on the loop device)" : "",
							(long long)(st.st_size > start_offset ? st.st_size - start_offset : 0),
							(long long)start_offset);
			else
				description = xasprintf("a block device from offset %lld, the same to each run",
							(long long)start_offset);
			return 0;
		}
	}
	if (!(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) || !several)
		return 0;
	if (take_stream(stream_name(st.st_mode), why) < 0)
		return -1;
	kind = INPUT_REPLAYED;
	description = xasprintf("%s: %llu bytes, read once, the same to each run", stream_name(st.st_mode), stored);
	return 0;
}

int input_reopen(const struct stat *before, const char *path, char **why)
{
	struct stat st;
	off_t offset;
	int flags, fd;

	if (fstat(STDIN_FILENO, &st) < 0 || st.st_dev != before->st_dev || st.st_ino != before->st_ino)
		return 0;
	flags = fcntl(STDIN_FILENO, F_GETFL);
	if (flags < 0 || (flags & O_ACCMODE) != O_RDONLY) {
		*why = xasprintf("%s: standard input is this --cold file open for writing: its copy on the loop "
				 "device is read-only, and the runs would read the file itself, not its copy",
				 path);
		return -1;
	}
	offset = lseek(STDIN_FILENO, 0, SEEK_CUR);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = xasprintf("%s: cannot open its copy for standard input: %s", path, strerror(errno));
		return -1;
	}
	if ((offset > 0 && lseek(fd, offset, SEEK_SET) < 0) || dup2(fd, STDIN_FILENO) < 0) {
		*why = xasprintf("%s: cannot give its copy as standard input: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	copy_of = path;
	return 1;
}

/* In the feeder: closes every descriptor but keep1 and keep2. */
static void close_others(int keep1, int keep2)
{
	int i;

	for (i = 0; i < 1024; i++)
		if (i != keep1 && i != keep2)
			close(i);
}

/* Writes the stored input into fd from offset on; false on failure (a run
   that stopped reading is not one). */
static bool copy_out(int fd, unsigned long long offset)
{
	while (offset < stored) {
		ssize_t got = pread(store, chunk, sizeof(chunk), offset);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || !write_all(fd, chunk, got))
			return false;
		offset += got;
	}
	return true;
}

int input_start(char **why)
{
	int fds[2];
	long room;

	if (kind == INPUT_REWOUND) {
		if (lseek(STDIN_FILENO, start_offset, SEEK_SET) < 0) {
			*why = xasprintf("standard input: cannot rewind it: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (kind != INPUT_REPLAYED)
		return 0;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		*why = xasprintf("standard input: pipe failed: %s", strerror(errno));
		return -1;
	}
	/* all of it in the pipe before the run when it fits: nothing runs
	   beside the command */
	room = fcntl(fds[1], F_GETPIPE_SZ);
	if (room >= 0 && (unsigned long long)room < stored) {
		long fitted = fcntl(fds[1], F_SETPIPE_SZ, stored < (1ul << 20) ? (int)stored : 1 << 20);

		if (fitted > 0)
			room = fitted;
	}
	if (room >= 0 && stored <= (unsigned long long)room) {
		if (!copy_out(fds[1], 0)) {
			*why = xasprintf("standard input: cannot fill the run's pipe: %s", strerror(errno));
			close(fds[0]);
			close(fds[1]);
			return -1;
		}
	} else {
		fflush(stdout);
		fflush(stderr);
		feeder = fork();
		if (feeder < 0) {
			*why = xasprintf("standard input: fork failed: %s", strerror(errno));
			feeder = 0;
			close(fds[0]);
			close(fds[1]);
			return -1;
		}
		if (feeder == 0) {
			signal(SIGPIPE, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			close_others(fds[1], store);
			_exit(copy_out(fds[1], 0) ? 0 : 1);
		}
	}
	close(fds[1]);
	if (dup2(fds[0], STDIN_FILENO) < 0) {
		*why = xasprintf("standard input: dup2 failed: %s", strerror(errno));
		close(fds[0]);
		return -1;
	}
	close(fds[0]);
	return 0;
}

void input_end(void)
{
	int null;

	if (kind != INPUT_REPLAYED)
		return;
	/* we hold no end of the run's pipe: a feeder still writing gets
	   EPIPE, and is ended anyway */
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		close(null);
	}
	if (feeder > 0) {
		kill(feeder, SIGKILL);
		while (waitpid(feeder, NULL, 0) < 0 && errno == EINTR)
			;
		feeder = 0;
	}
}

const char *input_description(void)
{
	return description;
}
