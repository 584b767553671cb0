#define _GNU_SOURCE /* asprintf, memfd_create */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *folder;

/* A file of the folder: a symbolic link to a memory file of the process.
   Writing a file on disk for every input, truncated and rewritten, cost
   ten times what most readers take (ext4 flushes a file replaced that
   way); a memory file costs nothing, and the readers still open a path. */
struct file {
	char *path;
	int fd;
};

/* A harness uses one or two. */
static struct file files[4];
static size_t file_count;

static void remove_folder(void)
{
	size_t i;

	for (i = 0; i < file_count; i++) {
		unlink(files[i].path);
		close(files[i].fd);
		free(files[i].path);
	}
	rmdir(folder);
	free(folder);
	folder = NULL;
}

static void fail(const char *what, const char *path)
{
	fprintf(stderr, "harness: %s: %s failed: %s\n", path, what, strerror(errno));
	abort();
}

const char *harness_folder(void)
{
	const char *tmp = getenv("TMPDIR");

	if (folder)
		return folder;
	if (asprintf(&folder, "%s/linkopt-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		abort();
	if (!mkdtemp(folder))
		fail("mkdtemp", folder);
	atexit(remove_folder);
	return folder;
}

/* The file name of the folder, made on first use. */
static struct file *file_named(const char *name)
{
	struct file *f;
	char *path, *target;
	size_t i;

	if (asprintf(&path, "%s/%s", harness_folder(), name) < 0)
		abort();
	for (i = 0; i < file_count; i++)
		if (!strcmp(files[i].path, path)) {
			free(path);
			return &files[i];
		}
	if (file_count == sizeof(files) / sizeof(*files))
		abort();
	f = &files[file_count];
	f->path = path;
	f->fd = memfd_create(name, MFD_CLOEXEC);
	if (f->fd < 0)
		fail("memfd_create", path);
	if (asprintf(&target, "/proc/self/fd/%d", f->fd) < 0)
		abort();
	if (symlink(target, path) < 0)
		fail("symlink", path);
	free(target);
	file_count++;
	return f;
}

const char *harness_file(const char *name, const uint8_t *data, size_t size)
{
	struct file *f = file_named(name);
	size_t done = 0;

	while (done < size) {
		ssize_t n = pwrite(f->fd, data + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail("pwrite", f->path);
		done += (size_t)n;
	}
	if (ftruncate(f->fd, (off_t)size) < 0)
		fail("ftruncate", f->path);
	return f->path;
}

char *harness_copy(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);

	if (!copy)
		abort();
	if (size)
		memcpy(copy, data, size);
	copy[size] = '\0';
	return copy;
}

void harness_check(int ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "harness: invariant broken: %s\n", what);
	abort();
}
