#include "store.h"
#include "files.h"
#include "util.h"

#include <errno.h>
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
	if (create && files_make_dir(path, why) < 0)
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
	status = write_file_atomic(file, description, strlen(description));
	if (status < 0)
		*why = xasprintf("%s: write failed: %s", file, strerror(errno));
	free(file);
	return status;
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
	else if (write_file_atomic(path, buf, size) < 0)
		*why = xasprintf("%s: write failed: %s", path, strerror(errno));
	else
		status = 0;
out:
	free(buf);
	free(path);
	return status;
}

int store_meta_read(const char *folder, struct store_meta *meta, char **why)
{
	char *path = xasprintf("%s/meta", folder);
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t linecap = 0, cap_w = 0, cap_o = 0, cap_s = 0, cap_wt = 0, cap_d = 0, cap_h = 0;
	ssize_t n;
	int status = 0;

	memset(meta, 0, sizeof(*meta));
	if (!f) {
		*why = xasprintf("%s: fopen failed: %s", path, strerror(errno));
		free(path);
		return -1;
	}
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
	if (ferror(f)) {
		*why = xasprintf("%s: read failed: %s", path, strerror(errno));
		status = -1;
	}
	free(line);
	free(path);
	fclose(f);
	return status;
}

