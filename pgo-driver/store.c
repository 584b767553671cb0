#include "store.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool dir_create(const char *path)
{
	char *copy = xstrdup(path), *p;

	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) < 0 && errno != EEXIST) {
			free(copy);
			return false;
		}
		*p = '/';
	}
	free(copy);
	return mkdir(path, 0777) == 0 || errno == EEXIST;
}

bool store_open(struct store *store, const char *path, const char *description, bool create)
{
	char resolved[4096];

	if (create && !dir_create(path)) {
		error("%s: cannot create the store: %s", path, strerror(errno));
		return false;
	}
	if (!realpath(path, resolved)) {
		if (errno == ENOENT && !create) {
			store->root = xstrdup(path);
		} else {
			error("%s: cannot open the store: %s", path, strerror(errno));
			return false;
		}
	} else {
		store->root = xstrdup(resolved);
	}
	store->description = xstrdup(description);
	store->key = xasprintf("%016" PRIx64, hash_string(description));
	store->config = xasprintf("%s/%s", store->root, store->key);
	if (create) {
		char *file = xasprintf("%s/config", store->config);

		if (!dir_create(store->config) ||
		    write_file_atomic(file, description, strlen(description)) < 0) {
			error("%s: cannot write the configuration: %s", file, strerror(errno));
			free(file);
			return false;
		}
		free(file);
	}
	return true;
}

void store_close(struct store *store)
{
	free(store->root);
	free(store->config);
	free(store->key);
	free(store->description);
	memset(store, 0, sizeof(*store));
}

void meta_free(struct profile_meta *meta)
{
	size_t i;

	for (i = 0; i < meta->nworkloads; i++)
		free(meta->workloads[i]);
	for (i = 0; i < meta->nobjects; i++)
		free(meta->objects[i]);
	for (i = 0; i < meta->nsources; i++)
		free(meta->sources[i]);
	free(meta->workloads);
	free(meta->weights);
	free(meta->objects);
	free(meta->has_data);
	free(meta->sources);
	free(meta->hashes);
	memset(meta, 0, sizeof(*meta));
}

char *store_profile_path(const struct store *store)
{
	return xasprintf("%s/profile", store->config);
}

bool store_has_profile(const struct store *store)
{
	char *path = xasprintf("%s/profile/meta", store->config);
	bool ok = access(path, R_OK) == 0;

	free(path);
	return ok;
}

char *store_new_profile(const struct store *store)
{
	char *path = xasprintf("%s/p.XXXXXX", store->config);

	if (!mkdtemp(path))
		fatal("%s: cannot create a profile folder: %s", path, strerror(errno));
	return path;
}

bool store_commit_profile(const struct store *store, const char *folder)
{
	char *link = store_profile_path(store);
	char *tmp = xasprintf("%s.new", link);
	char old[4096];
	const char *base = strrchr(folder, '/') + 1;
	ssize_t n = readlink(link, old, sizeof(old) - 1);
	bool ok = false;

	unlink(tmp);
	if (symlink(base, tmp) < 0 || rename(tmp, link) < 0) {
		error("%s: cannot install the new profile: %s", link, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (n > 0 && (size_t)n < sizeof(old)) {
		char *previous;

		old[n] = '\0';
		previous = xasprintf("%s/%s", store->config, old);
		if (strcmp(old, base) != 0 && !tree_remove(previous))
			warn("%s: cannot remove the replaced profile: %s", previous, strerror(errno));
		free(previous);
	}
	ok = true;
out:
	free(link);
	free(tmp);
	return ok;
}

static void one_line(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\n' ? ' ' : *s, f);
	fputc('\n', f);
}

bool meta_write(const char *folder, const struct profile_meta *meta)
{
	char *path = xasprintf("%s/meta", folder);
	char *buf = NULL;
	size_t size = 0, i;
	FILE *f = open_memstream(&buf, &size);
	bool ok;

	if (!f)
		fatal("cannot make a memory stream: %s", strerror(errno));
	fprintf(f, "pgo-run profile 1\ntrained %ld\n", meta->trained);
	for (i = 0; i < meta->nworkloads; i++) {
		fprintf(f, "workload %g ", meta->weights[i]);
		one_line(f, meta->workloads[i]);
	}
	for (i = 0; i < meta->nobjects; i++)
		fprintf(f, "object %d %s\n", meta->has_data[i], meta->objects[i]);
	for (i = 0; i < meta->nsources; i++) {
		fprintf(f, "source %016" PRIx64 " ", meta->hashes[i]);
		one_line(f, meta->sources[i]);
	}
	fclose(f);
	ok = write_file_atomic(path, buf, size) == 0;
	if (!ok)
		error("%s: cannot write: %s", path, strerror(errno));
	free(buf);
	free(path);
	return ok;
}

bool meta_read(const char *folder, struct profile_meta *meta)
{
	char *path = xasprintf("%s/meta", folder);
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t linecap = 0, cap_w = 0, cap_o = 0, cap_s = 0, cap_wt = 0, cap_d = 0, cap_h = 0;
	ssize_t n;

	free(path);
	memset(meta, 0, sizeof(*meta));
	if (!f)
		return false;
	while ((n = getline(&line, &linecap, f)) > 0) {
		char *rest;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (!strncmp(line, "trained ", 8)) {
			meta->trained = strtol(line + 8, NULL, 10);
		} else if (!strncmp(line, "workload ", 9)) {
			double w = strtod(line + 9, &rest);

			grow_array(&meta->weights, &cap_wt, meta->nworkloads + 1, sizeof(double));
			meta->weights[meta->nworkloads] = w;
			*ARRAY_PUSH(meta->workloads, meta->nworkloads, cap_w) = xstrdup(rest + (*rest == ' '));
		} else if (!strncmp(line, "object ", 7) && strlen(line) > 9) {
			size_t i = meta->nobjects;

			grow_array(&meta->has_data, &cap_d, i + 1, sizeof(bool));
			meta->has_data[i] = line[7] == '1';
			*ARRAY_PUSH(meta->objects, meta->nobjects, cap_o) = xstrdup(line + 9);
		} else if (!strncmp(line, "source ", 7)) {
			uint64_t h = strtoull(line + 7, &rest, 16);
			size_t i = meta->nsources;

			grow_array(&meta->hashes, &cap_h, i + 1, sizeof(uint64_t));
			meta->hashes[i] = h;
			*ARRAY_PUSH(meta->sources, meta->nsources, cap_s) = xstrdup(rest + (*rest == ' '));
		}
	}
	free(line);
	fclose(f);
	return true;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_into(const char *dir, const char *rel, const char *suffix, long since,
		      char ***list, size_t *count, size_t *cap)
{
	char *path = rel ? xasprintf("%s/%s", dir, rel) : xstrdup(dir);
	DIR *d = opendir(path);
	struct dirent *e;
	size_t slen = strlen(suffix);

	if (!d) {
		free(path);
		return;
	}
	while ((e = readdir(d))) {
		char *sub, *full;
		struct stat st;
		size_t len = strlen(e->d_name);

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		full = xasprintf("%s/%s", path, e->d_name);
		if (lstat(full, &st) < 0) {
			free(sub);
		} else if (S_ISDIR(st.st_mode)) {
			/* the store lives in the project folder: never list it */
			if (e->d_name[0] != '.')
				list_into(dir, sub, suffix, since, list, count, cap);
			free(sub);
		} else if (S_ISREG(st.st_mode) && len >= slen &&
			   !strcmp(e->d_name + len - slen, suffix) && st.st_mtime >= since) {
			*ARRAY_PUSH(*list, *count, *cap) = sub;
		} else {
			free(sub);
		}
		free(full);
	}
	closedir(d);
	free(path);
}

char **files_list(const char *dir, const char *suffix, long since, size_t *count)
{
	char **list = NULL;
	size_t cap = 0;

	*count = 0;
	list_into(dir, NULL, suffix, since, &list, count, &cap);
	if (*count)
		qsort(list, *count, sizeof(*list), compare_strings);
	return list;
}

bool file_copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, saved;
	ssize_t n;

	if (in < 0)
		return false;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		saved = errno;
		close(in);
		errno = saved;
		return false;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	}
	saved = errno;
	close(in);
	if (close(out) < 0 || n < 0) {
		errno = n < 0 ? saved : errno;
		return false;
	}
	return true;
}

bool tree_remove(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	bool ok = true;

	if (lstat(path, &st) < 0)
		return errno == ENOENT;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) == 0;
	d = opendir(path);
	if (!d)
		return false;
	while ((e = readdir(d))) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, e->d_name);
		ok &= tree_remove(sub);
		free(sub);
	}
	closedir(d);
	return rmdir(path) == 0 && ok;
}

bool file_hash(const char *path, uint64_t *hash)
{
	unsigned char buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, i;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			h ^= buf[i];
			h *= 0x100000001b3ULL;
		}
	}
	close(fd);
	*hash = h;
	return n == 0;
}

char *profile_name(const char *rel)
{
	char *name = xstrdup(rel), *p, *dot = strrchr(name, '.');

	if (dot && !strchr(dot, '/'))
		*dot = '\0';
	for (p = name; *p; p++)
		if (*p == '/')
			*p = '#';
	return name;
}
