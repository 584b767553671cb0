#include "llvm.h"
#include "elfobj.h"
#include "files.h"
#include "proc.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

char *llvm_raw_pattern(const char *dir)
{
	return xasprintf("%s/%%m.profraw", dir);
}

char *llvm_damage(const struct session *s, const char *path)
{
	char *argv[] = { s->profdata, "show", (char *)path, NULL }, *err = NULL, *out, *why = NULL;
	int status;

	out = proc_output(argv, &status, &err);
	if (status != 0) {
		char *line = err && *err ? err : NULL, *p;

		if (line) {
			line[strcspn(line, "\n")] = '\0';
			/* "error: FILE: reason": the reason */
			if ((p = strstr(line, path)) && p[strlen(path)] == ':')
				line = p + strlen(path) + 1;
			line += strspn(line, " ");
		}
		why = xstrdup(line ? line : "llvm-profdata cannot read it");
	}
	free(out);
	free(err);
	return why;
}

int llvm_list_profiles(const char *dir, char ***files, size_t *n, char **why)
{
	char **indexed;
	size_t nindexed, i;

	if (files_list(dir, ".profraw", 0, files, n, why) < 0)
		return -1;
	if (files_list(dir, ".profdata", 0, &indexed, &nindexed, why) < 0) {
		files_free_list(*files, *n);
		return -1;
	}
	for (i = 0; i < nindexed; i++) {
		grow_array(files, &(size_t){ *n }, *n + 1, sizeof(**files));
		(*files)[(*n)++] = indexed[i];
	}
	free(indexed);
	return 0;
}

size_t llvm_runtime_errors(const char *log, const char *dir, char ***lines)
{
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t cap = 0, count = 0, capacity = 0;
	ssize_t n;

	*lines = NULL;
	if (!f)
		return 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		const char *at;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		/* LLVM Profile Error: Failed to write file "DIR/x.profraw": reason */
		if (strncmp(line, "LLVM Profile Error:", 19) != 0 || !(at = strstr(line, dir)) ||
		    at[strlen(dir)] != '/')
			continue;
		*ARRAY_PUSH(*lines, count, capacity) = xstrdup(line);
	}
	free(line);
	fclose(f);
	return count;
}

bool llvm_merge(const struct session *s, char **dirs, const long *whole, size_t n, const char *out,
		const char *log)
{
	char **argv = NULL, *target = xasprintf("%s/%s", out, CLANG_PROFDATA), *why = NULL, **files;
	size_t argc = 0, cap = 0, i, k, nfiles;
	int status;
	bool ok = false;

	*ARRAY_PUSH(argv, argc, cap) = xstrdup(s->profdata);
	*ARRAY_PUSH(argv, argc, cap) = xstrdup("merge");
	/* one unreadable input fails the merge (by default it is skipped) */
	*ARRAY_PUSH(argv, argc, cap) = xstrdup("--failure-mode=all");
	*ARRAY_PUSH(argv, argc, cap) = xstrdup("-o");
	*ARRAY_PUSH(argv, argc, cap) = xstrdup(target);
	for (i = 0; i < n; i++) {
		if (llvm_list_profiles(dirs[i], &files, &nfiles, &why) < 0) {
			error("%s", why);
			goto out;
		}
		for (k = 0; k < nfiles; k++)
			*ARRAY_PUSH(argv, argc, cap) = xasprintf("--weighted-input=%ld,%s/%s", whole[i], dirs[i],
								 files[k]);
		files_free_list(files, nfiles);
	}
	*ARRAY_PUSH(argv, argc, cap) = NULL;
	status = proc_run(argv, NULL, NULL, 0, log, NULL);
	if (status != 0) {
		char *text = proc_describe(status);

		error("llvm-profdata merge failed: %s (log %s)", text, log);
		free(text);
		goto out;
	}
	/* what it wrote must read back */
	if ((why = llvm_damage(s, target))) {
		error("the merged profile %s cannot be read: %s (log %s)", target, why, log);
		goto out;
	}
	ok = true;
out:
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	free(target);
	free(why);
	return ok;
}

/* The names of the functions that ran (llvm-profdata show --covered), as
   keys of ran pointing into the returned buffer (free it after the map);
   NULL when the profile cannot be read. */
static char *covered_functions(const struct session *s, const char *profile, struct strmap *ran)
{
	char *target = xasprintf("%s/%s", profile, CLANG_PROFDATA);
	char *argv[] = { s->profdata, "show", "--covered", target, NULL };
	char *out = proc_capture(argv, NULL), *line, *save = NULL;

	free(target);
	if (!out)
		return NULL;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		*strmap_slot(ran, line) = line;
	return out;
}

/* True when a function of obj ran: its name (global) is among the
   covered ones, or for a static function "SOURCE;name" (clang's name for
   it, SOURCE as the compile named it) is among local_names. */
static bool object_ran(const struct elf_object *obj, const struct strmap *ran, const char *const *local_names,
		       size_t nlocal)
{
	size_t i, k;

	for (i = 0; i < obj->symbol_count; i++) {
		const struct elf_symbol *sym = &obj->symbols[i];

		if (sym->type != 2 /* STT_FUNC */ || sym->shndx == 0 || !sym->name || !*sym->name)
			continue;
		if (i >= obj->first_global) {
			if (strmap_get(ran, sym->name))
				return true;
			continue;
		}
		for (k = 0; k < nlocal; k++) {
			const char *semi = strrchr(local_names[k], ';');

			if (semi && !strcmp(semi + 1, sym->name))
				return true;
		}
	}
	return false;
}

/* Opens the object at path; *counters gets whether it holds clang's
   profile counters, *ran whether one of its functions ran.  False when it
   cannot be read as ELF. */
static bool look_at_object(const char *path, const struct strmap *ran, const char *const *local_names,
			   size_t nlocal, bool *counters, bool *has_run)
{
	struct elf_object obj;
	void *map;
	size_t size;
	char *why = NULL;
	bool ok = false;

	*counters = *has_run = false;
	if (map_file(path, &map, &size, &why) < 0) {
		free(why);
		return false;
	}
	if (elfobj_open(&obj, path, map, size, &why) == 0) {
		ok = true;
		*counters = elfobj_section_by_name(&obj, "__llvm_prf_cnts") != 0;
		*has_run = *counters && object_ran(&obj, ran, local_names, nlocal);
		elfobj_close(&obj);
	}
	free(why);
	munmap(map, size);
	return ok;
}

bool llvm_describe(const struct session *s, const char *profile, const struct compiles *gen,
		   struct store_meta *meta)
{
	struct strmap ran = { 0 };
	char *names = covered_functions(s, profile, &ran), **local = NULL;
	size_t i, nlocal = 0, cap_l = 0, cap_o = 0, cap_d = 0;
	bool ok = false;

	meta->objects = NULL;
	meta->nobjects = 0;
	if (!names) {
		error("%s/%s: llvm-profdata show --covered cannot read it", profile, CLANG_PROFDATA);
		return false;
	}
	for (i = 0; i < ran.capacity; i++)
		if (ran.slots[i].key && strchr(ran.slots[i].key, ';'))
			*ARRAY_PUSH(local, nlocal, cap_l) = (char *)ran.slots[i].key;
	for (i = 0; i < gen->count; i++) {
		const struct compile_output *o = &gen->outputs[i];
		bool counters, has_run;

		if (o->kind != OUTPUT_OBJECT ||
		    !look_at_object(o->path, &ran, (const char *const *)local, nlocal, &counters, &has_run) ||
		    !counters)
			continue;
		grow_array(&meta->has_data, &cap_d, meta->nobjects + 1, sizeof(bool));
		meta->has_data[meta->nobjects] = has_run;
		*ARRAY_PUSH(meta->objects, meta->nobjects, cap_o) = compiles_relative(o->path, s->gen_dir);
	}
	if (meta->nobjects == 0 && gen->count > 0) {
		error("%s: no object of the instrumented build holds clang's profile counters (__llvm_prf_cnts): "
		      "its compiler commands did not get the flags (see pgo-run(1))", s->gen_dir);
		goto out;
	}
	meta->nsources = gen->nsources;
	meta->sources = xcalloc(gen->nsources + 1, sizeof(*meta->sources));
	meta->hashes = xcalloc(gen->nsources + 1, sizeof(*meta->hashes));
	/* a source that cannot be read gets hash 0: stale from the start */
	for (i = 0; i < gen->nsources; i++) {
		meta->sources[i] = xstrdup(gen->sources[i]);
		if (files_hash(meta->sources[i], &meta->hashes[i], NULL) < 0)
			meta->hashes[i] = 0;
	}
	ok = true;
out:
	free(local);
	strmap_free(&ran);
	free(names);
	return ok;
}

long llvm_top_functions(const struct session *s, const char *profile, size_t top, char ***names,
			unsigned long long **counts, char **why)
{
	char *target = xasprintf("%s/%s", profile, CLANG_PROFDATA), *topn = xasprintf("--topn=%zu", top);
	char *argv[] = { s->profdata, "show", topn, target, NULL };
	char *out = proc_capture(argv, NULL), *line, *save = NULL;
	size_t n = 0, cap_n = 0, cap_c = 0;
	bool listing = false;

	*names = NULL;
	*counts = NULL;
	if (!out) {
		*why = xasprintf("%s: llvm-profdata show cannot read it", target);
		free(target);
		free(topn);
		return -1;
	}
	/* "Top N functions with the largest internal block counts:" then
	   "  NAME, max count = C" */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *comma;

		if (!strncmp(line, "Top ", 4)) {
			listing = true;
			continue;
		}
		if (!listing || strncmp(line, "  ", 2) != 0 || !(comma = strstr(line, ", max count = ")))
			continue;
		grow_array(counts, &cap_c, n + 1, sizeof(**counts));
		(*counts)[n] = strtoull(comma + 14, NULL, 10);
		*ARRAY_PUSH(*names, n, cap_n) = xstrndup(line + 2, comma - line - 2);
	}
	free(out);
	free(target);
	free(topn);
	return (long)n;
}
