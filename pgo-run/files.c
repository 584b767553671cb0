#define _GNU_SOURCE
#include "files.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Sets *why (when asked for) from errno and returns -1. */
static int failed(char **why, const char *path, const char *call)
{
	if (why)
		*why = xasprintf("%s: %s failed: %s", path, call, strerror(errno));
	return -1;
}

int files_make_path(const char *path, char **why)
{
	char *copy = xstrdup(path), *p;

	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) < 0 && errno != EEXIST) {
			failed(why, copy, "mkdir");
			free(copy);
			return -1;
		}
		*p = '/';
	}
	free(copy);
	if (mkdir(path, 0777) < 0 && errno != EEXIST)
		return failed(why, path, "mkdir");
	return 0;
}

/* Creates the folder path unless a folder is there; a link or anything
   else there is refused. */
static int make_one_folder(const char *path, char **why)
{
	struct stat st;

	if (mkdir(path, 0777) == 0)
		return 0;
	if (errno != EEXIST)
		return failed(why, path, "mkdir");
	if (lstat(path, &st) < 0)
		return failed(why, path, "lstat");
	if (S_ISDIR(st.st_mode))
		return 0;
	if (why)
		*why = xasprintf("%s: %s where pgo-run keeps a folder: pgo-run writes nothing through a link "
				 "it did not make; remove it", path,
				 S_ISLNK(st.st_mode) ? "a symbolic link" : "not a folder");
	return -1;
}

int files_make_dir(const char *path, char **why)
{
	char *copy = xstrdup(path), *p;
	int status = 0;

	for (p = copy + 1; *p && status == 0; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		status = make_one_folder(copy, why);
		*p = '/';
	}
	if (status == 0)
		status = make_one_folder(copy, why);
	free(copy);
	return status;
}

int files_make_unique_dir(char *template, char **why)
{
	if (!mkdtemp(template))
		return failed(why, template, "mkdtemp");
	if (chmod(template, 0777 & ~file_creation_mask()) < 0) {
		failed(why, template, "chmod");
		rmdir(template);
		return -1;
	}
	return 0;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct listing {
	const char *dir, *suffix;
	long since;
	char **list;
	size_t count, cap;
};

/* Adds the files of the folder rel (NULL: the top) to l; false when the
   folder cannot be opened. */
static bool list_into(struct listing *l, const char *rel)
{
	char *path = rel ? xasprintf("%s/%s", l->dir, rel) : xstrdup(l->dir);
	DIR *d = opendir(path);
	struct dirent *e;
	size_t slen = strlen(l->suffix);
	int saved = errno;

	free(path);
	if (!d) {
		errno = saved;
		return false;
	}
	while ((e = readdir(d))) {
		char *sub, *full;
		struct stat st;
		size_t len = strlen(e->d_name);
		bool found;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		full = xasprintf("%s/%s", l->dir, sub);
		/* an entry gone since readdir is not listed */
		found = lstat(full, &st) == 0;
		if (found && S_ISDIR(st.st_mode) && e->d_name[0] != '.') {
			list_into(l, sub);
		} else if (found && S_ISREG(st.st_mode) && len >= slen &&
			   !strcmp(e->d_name + len - slen, l->suffix) && st.st_mtime >= l->since) {
			*ARRAY_PUSH(l->list, l->count, l->cap) = sub;
			sub = NULL;
		}
		free(sub);
		free(full);
	}
	closedir(d);
	return true;
}

int files_list(const char *dir, const char *suffix, long since, char ***list, size_t *count, char **why)
{
	struct listing l = { .dir = dir, .suffix = suffix, .since = since };

	*list = NULL;
	*count = 0;
	if (!list_into(&l, NULL)) {
		if (errno == ENOENT)
			return 0;
		return failed(why, dir, "opendir");
	}
	if (l.count)
		qsort(l.list, l.count, sizeof(*l.list), compare_strings);
	*list = l.list;
	*count = l.count;
	return 0;
}

void files_free_list(char **list, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(list[i]);
	free(list);
}

/* A new temporary file beside path, opened for writing (O_EXCL: nothing
   there is followed) with the mode of files_write; its name goes to *tmp.
   -1 with errno set. */
static int temporary_beside(const char *path, bool executable, char **tmp)
{
	int fd;

	*tmp = xasprintf("%s.tmpXXXXXX", path);
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fchmod(fd, (executable ? 0777 : 0666) & ~file_creation_mask()) < 0) {
		int saved = errno;

		close(fd);
		unlink(*tmp);
		errno = saved;
		return -1;
	}
	return fd;
}

static bool write_all(int fd, const void *data, size_t size)
{
	const char *p = data;

	while (size > 0) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return false;
		}
		p += n;
		size -= (size_t)n;
	}
	return true;
}

/* Completes a write into the temporary tmp (fd): closes it and renames it
   onto path, or removes it; returns status, or -1 when this fails. */
static int finish_temporary(int fd, char *tmp, const char *path, int status, char **why)
{
	if (close(fd) < 0 && status == 0)
		status = failed(why, tmp, "close");
	if (status == 0 && rename(tmp, path) < 0)
		status = failed(why, path, "rename");
	if (status < 0)
		unlink(tmp);
	free(tmp);
	return status;
}

int files_write(const char *path, const void *data, size_t size, bool executable, char **why)
{
	char *tmp;
	int fd = temporary_beside(path, executable, &tmp), status = 0;

	if (fd < 0) {
		status = failed(why, tmp, "mkostemp");
		free(tmp);
		return status;
	}
	if (!write_all(fd, data, size))
		status = failed(why, tmp, "write");
	return finish_temporary(fd, tmp, path, status, why);
}

int files_copy(const char *from, const char *to, bool executable, char **why)
{
	char buf[65536], *tmp;
	int in = open(from, O_RDONLY | O_CLOEXEC), out, status = 0;
	ssize_t n;

	if (in < 0)
		return failed(why, from, "open");
	out = temporary_beside(to, executable, &tmp);
	if (out < 0) {
		status = failed(why, tmp, "mkostemp");
		free(tmp);
		close(in);
		return status;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (!write_all(out, buf, (size_t)n)) {
			status = failed(why, tmp, "write");
			break;
		}
	}
	if (n < 0)
		status = failed(why, from, "read");
	close(in);
	return finish_temporary(out, tmp, to, status, why);
}

int files_create_empty(const char *path, char **why)
{
	int fd;

	if (unlink(path) < 0 && errno != ENOENT)
		return failed(why, path, "unlink");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return failed(why, path, "open");
	if (close(fd) < 0)
		return failed(why, path, "close");
	return 0;
}

int files_remove(const char *path, char **why)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int status = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : failed(why, path, "lstat");
	if (!S_ISDIR(st.st_mode))
		return unlink(path) == 0 ? 0 : failed(why, path, "unlink");
	d = opendir(path);
	if (!d)
		return failed(why, path, "opendir");
	/* remove all that can be removed; the reason is the first failure's */
	while ((e = readdir(d))) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, e->d_name);
		if (files_remove(sub, status ? NULL : why) < 0)
			status = -1;
		free(sub);
	}
	closedir(d);
	if (rmdir(path) < 0 && status == 0)
		status = failed(why, path, "rmdir");
	return status;
}

int files_hash(const char *path, uint64_t *hash, char **why)
{
	unsigned char buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, i;

	if (fd < 0)
		return failed(why, path, "open");
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			h ^= buf[i];
			h *= 0x100000001b3ULL;
		}
	}
	if (n < 0) {
		failed(why, path, "read");
		close(fd);
		return -1;
	}
	close(fd);
	*hash = h;
	return 0;
}
