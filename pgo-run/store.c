#include "store.h"
#include "files.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <time.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int store_open(struct store *store, const char *path, const char *description, bool create, char **why)
{
	char resolved[4096], *file;
	int status;

	memset(store, 0, sizeof(*store));
	if (create && files_make_path(path, why) < 0)
		return -1;
	if (realpath(path, resolved)) {
		store->root = xstrdup(resolved);
	} else if (errno == ENOENT && !create) {
		store->root = xstrdup(path);
	} else {
		*why = xasprintf("%s: realpath failed: %s", path, strerror(errno));
		return -1;
	}
	store->description = xstrdup(description);
	store->key = xasprintf("%016" PRIx64, hash_string(description));
	store->config = xasprintf("%s/%s", store->root, store->key);
	if (!create)
		return 0;
	if (files_make_dir(store->config, why) < 0)
		return -1;
	file = xasprintf("%s/config", store->config);
	status = files_write(file, description, strlen(description), false, why);
	free(file);
	return status;
}

bool store_is_key(const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++)
		if (!strchr("0123456789abcdef", name[i]))
			return false;
	return i == 16;
}

void store_close(struct store *store)
{
	free(store->root);
	free(store->config);
	free(store->key);
	free(store->description);
	memset(store, 0, sizeof(*store));
}

void store_meta_free(struct store_meta *meta)
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

char *store_new_profile(const struct store *store, char **why)
{
	char *path = xasprintf("%s/p.XXXXXX", store->config);

	if (files_make_unique_dir(path, why) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

char *store_new_scratch(const struct store *store, char **why)
{
	char *path = xasprintf("%s/raw.XXXXXX", store->config);

	if (files_make_unique_dir(path, why) < 0) {
		free(path);
		return NULL;
	}
	return path;
}

/* True when name, in a configuration's folder, is what a run makes and
   removes before it ends: store_new_scratch's and store_new_profile's
   folders (in_use, the profile's, aside) and store_commit_profile's
   temporary symlink. */
static bool unfinished(const char *name, const char *in_use)
{
	if (!strcmp(name, "profile.new"))
		return true;
	if (strncmp(name, "raw.", 4) && strncmp(name, "p.", 2))
		return false;
	return strcmp(name, in_use) != 0;
}

int store_remove_leftovers(const struct store *store, char ***removed, size_t *count, char **why)
{
	char *link = store_profile_path(store), in_use[4096];
	const char *base;
	ssize_t n = readlink(link, in_use, sizeof(in_use) - 1);
	DIR *dir = opendir(store->config);
	struct dirent *e;
	size_t capacity = 0;
	int status = 0;

	*removed = NULL;
	*count = 0;
	in_use[n > 0 ? n : 0] = '\0';
	free(link);
	if (!dir) {
		if (errno == ENOENT)
			return 0;
		*why = xasprintf("%s: opendir failed: %s", store->config, strerror(errno));
		return -1;
	}
	/* store_commit_profile links by name: a path here was made by hand */
	base = strrchr(in_use, '/') ? strrchr(in_use, '/') + 1 : in_use;
	while ((e = readdir(dir))) {
		char *path;

		if (!unfinished(e->d_name, base))
			continue;
		path = xasprintf("%s/%s", store->config, e->d_name);
		if (files_remove(path, status ? NULL : why) < 0)
			status = -1;
		else
			*ARRAY_PUSH(*removed, *count, capacity) = xstrdup(e->d_name);
		free(path);
	}
	closedir(dir);
	return status;
}

int store_commit_profile(const struct store *store, const char *folder, char **replaced, char **why)
{
	char *link = store_profile_path(store);
	char *tmp = xasprintf("%s.new", link);
	char old[4096];
	const char *base = strrchr(folder, '/') + 1;
	ssize_t n = readlink(link, old, sizeof(old) - 1);
	int status = -1;

	*replaced = NULL;
	unlink(tmp);
	if (symlink(base, tmp) < 0) {
		*why = xasprintf("%s: symlink failed: %s", tmp, strerror(errno));
		goto out;
	}
	if (rename(tmp, link) < 0) {
		*why = xasprintf("%s: rename failed: %s", link, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (n > 0 && (size_t)n < sizeof(old)) {
		old[n] = '\0';
		if (strcmp(old, base) != 0)
			*replaced = xasprintf("%s/%s", store->config, old);
	}
	status = 0;
out:
	free(link);
	free(tmp);
	return status;
}

static void one_line(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\n' ? ' ' : *s, f);
	fputc('\n', f);
}

int store_meta_write(const char *folder, const struct store_meta *meta, char **why)
{
	char *path = xasprintf("%s/meta", folder);
	char *buf = NULL;
	size_t size = 0, i;
	FILE *f = open_memstream(&buf, &size);
	int status = -1;

	if (!f) {
		*why = xasprintf("%s: open_memstream failed: %s", path, strerror(errno));
		goto out;
	}
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
	if (fclose(f) != 0)
		*why = xasprintf("%s: fclose of its memory stream failed: %s", path, strerror(errno));
	else if (files_write(path, buf, size, false, why) == 0)
		status = 0;
out:
	free(buf);
	free(path);
	return status;
}

/* A "trained" time: seconds since the epoch, not before 2000 nor more
   than a day ahead of now (gmtime has no year past 9999). */
struct meta_capacity {
	size_t workloads, weights, objects, has_data, sources, hashes;
};

static bool valid_time(const char *text, long *value)
{
	char *end;

	if (*text < '0' || *text > '9')
		return false;
	errno = 0;
	*value = strtol(text, &end, 10);
	return !*end && !errno && *value >= 946684800 && *value <= (long)time(NULL) + 86400;
}

/* Reads one line of a meta file into meta; NULL, or what is wrong. */
static const char *meta_line(struct store_meta *meta, const char *line, struct meta_capacity *cap)
{
	char *rest;

	if (!strncmp(line, "trained ", 8)) {
		if (!valid_time(line + 8, &meta->trained))
			return "'trained' is not a time since 2000 and before tomorrow";
	} else if (!strncmp(line, "workload ", 9)) {
		double w;

		errno = 0;
		w = strtod(line + 9, &rest);
		if (rest == line + 9 || errno || !(w > 0) || !isfinite(w) || (*rest && *rest != ' '))
			return "a workload's weight is not a positive number";
		grow_array(&meta->weights, &cap->weights, meta->nworkloads + 1, sizeof(double));
		meta->weights[meta->nworkloads] = w;
		*ARRAY_PUSH(meta->workloads, meta->nworkloads, cap->workloads) = xstrdup(rest + (*rest == ' '));
	} else if (!strncmp(line, "object ", 7)) {
		size_t i = meta->nobjects;

		if ((line[7] != '0' && line[7] != '1') || line[8] != ' ' || !line[9])
			return "an object line is not 'object 0|1 NAME'";
		grow_array(&meta->has_data, &cap->has_data, i + 1, sizeof(bool));
		meta->has_data[i] = line[7] == '1';
		*ARRAY_PUSH(meta->objects, meta->nobjects, cap->objects) = xstrdup(line + 9);
	} else if (!strncmp(line, "source ", 7)) {
		size_t i = meta->nsources;
		uint64_t h;

		errno = 0;
		h = strtoull(line + 7, &rest, 16);
		if (rest != line + 7 + 16 || errno || *rest != ' ' || !rest[1])
			return "a source line is not 'source HASH PATH'";
		grow_array(&meta->hashes, &cap->hashes, i + 1, sizeof(uint64_t));
		meta->hashes[i] = h;
		*ARRAY_PUSH(meta->sources, meta->nsources, cap->sources) = xstrdup(rest + 1);
	} else {
		return "not a line of a pgo-run profile's meta file";
	}
	return NULL;
}

int store_meta_read(const char *folder, struct store_meta *meta, char **why)
{
	char *path = xasprintf("%s/meta", folder);
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t linecap = 0, number = 0;
	struct meta_capacity cap = { 0 };
	ssize_t n;
	int status = 0;

	memset(meta, 0, sizeof(*meta));
	if (!f) {
		*why = xasprintf("%s: fopen failed: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while (!status && (n = getline(&line, &linecap, f)) > 0) {
		const char *bad;

		number++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (number == 1)
			bad = strcmp(line, "pgo-run profile 1") ? "not a pgo-run profile's meta file" : NULL;
		else
			bad = meta_line(meta, line, &cap);
		if (bad) {
			*why = xasprintf("%s: line %zu: %s", path, number, bad);
			status = -1;
		}
	}
	if (!status && ferror(f)) {
		*why = xasprintf("%s: read failed: %s", path, strerror(errno));
		status = -1;
	}
	if (!status && !meta->trained) {
		*why = xasprintf("%s: no 'trained' line", path);
		status = -1;
	}
	if (status)
		store_meta_free(meta);
	free(line);
	free(path);
	fclose(f);
	return status;
}

