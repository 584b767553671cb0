#include "record.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *record_path(const char *dir, const char *name, const char *suffix)
{
	return xasprintf("%s/%s.%s", dir, name, suffix);
}

char *record_absolute(const char *dir, const char *path)
{
	char *joined = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", dir, path);
	char *out = xmalloc(strlen(joined) + 1), *q = out;
	const char *p = joined;

	while (*p) {
		if (p[0] == '/' && p[1] == '/') {
			p++;
		} else if (p[0] == '/' && p[1] == '.' && (p[2] == '/' || p[2] == '\0')) {
			p += 2;
		} else {
			*q++ = *p++;
		}
	}
	if (q == out)
		*q++ = '/';
	*q = '\0';
	free(joined);
	return out;
}

int record_make_dir(const char *dir, char **why)
{
	char *copy = xstrdup(dir), *p;
	struct stat st;

	for (p = copy + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;

		*p = '\0';
		if (mkdir(copy, 0777) < 0 && errno != EEXIST) {
			*why = xasprintf("%s: mkdir failed: %s", copy, strerror(errno));
			free(copy);
			return -1;
		}
		*p = saved;
		if (!saved)
			break;
	}
	free(copy);
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		*why = xasprintf("%s: not a folder", dir);
		return -1;
	}
	return 0;
}

int record_write(const char *path, const char *tag, char *const *strings, int count, char **why)
{
	size_t size = strlen(tag) + 1, at;
	char *data;
	int i;

	for (i = 0; i < count; i++)
		size += strlen(strings[i]) + 1;
	data = xmalloc(size);
	at = strlen(tag);
	memcpy(data, tag, at);
	data[at++] = '\n';
	for (i = 0; i < count; i++) {
		size_t n = strlen(strings[i]) + 1;

		memcpy(data + at, strings[i], n);
		at += n;
	}
	if (write_file_atomic(path, data, size) < 0) {
		*why = xasprintf("%s: cannot write: %s", path, strerror(errno));
		free(data);
		return -1;
	}
	free(data);
	return 0;
}

char *record_read_whole(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved;
	size_t capacity = 4096, n = 0;
	char *data;

	if (fd < 0)
		return NULL;
	data = xmalloc(capacity + 1);
	for (;;) {
		ssize_t got;

		if (n == capacity)
			data = xrealloc(data, (capacity *= 2) + 1);
		got = read(fd, data + n, capacity - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			saved = errno;
			free(data);
			close(fd);
			errno = saved;
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	data[n] = '\0';
	*size = n;
	return data;
}

int record_read(const char *path, const char *tag, struct record *rec, char **why)
{
	size_t size, at, tag_size = strlen(tag), capacity = 0;
	char *data = record_read_whole(path, &size);

	memset(rec, 0, sizeof(*rec));
	if (!data) {
		int saved = errno;

		*why = xasprintf("%s: cannot read: %s", path, strerror(errno));
		errno = saved;
		return -1;
	}
	if (size < tag_size + 1 || memcmp(data, tag, tag_size) != 0 || data[tag_size] != '\n') {
		*why = xasprintf("%s: not a record of linkopt-cc ('%s' expected on its first line)", path, tag);
		free(data);
		errno = EINVAL;
		return -1;
	}
	if (size > tag_size + 1 && data[size - 1] != '\0') {
		*why = xasprintf("%s: cut short: its last string has no end", path);
		free(data);
		errno = EINVAL;
		return -1;
	}
	for (at = tag_size + 1; at < size; at += strlen(data + at) + 1)
		*ARRAY_PUSH(rec->strings, rec->count, capacity) = data + at;
	*ARRAY_PUSH(rec->strings, rec->count, capacity) = NULL;
	rec->count--;
	rec->data = data;
	return 0;
}

void record_free(struct record *rec)
{
	free(rec->strings);
	free(rec->data);
	memset(rec, 0, sizeof(*rec));
}

int record_copy_file(const char *path, const char *copy, char **why)
{
	size_t size;
	char *data = record_read_whole(path, &size);

	if (!data) {
		*why = xasprintf("%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (write_file_atomic(copy, data, size) < 0) {
		*why = xasprintf("%s: cannot write: %s", copy, strerror(errno));
		free(data);
		return -1;
	}
	free(data);
	return 0;
}

bool record_same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}
