#include "bench.h"
#include "elfobj.h"
#include "files.h"
#include "jobs.h"
#include "proc.h"
#include "steps.h"
#include "progress.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), compare_doubles);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Sets *soname to a new copy of the soname of the shared library at path;
   false when it is not one (a program, an object, not ELF). */
static bool library_soname(const char *path, char **soname)
{
	struct elf_object obj;
	void *map;
	size_t size;
	char *why = NULL;
	bool found = false;

	*soname = NULL;
	if (map_file(path, &map, &size, &why) < 0) {
		free(why);
		return false;
	}
	if (elfobj_open(&obj, path, map, size, &why) == 0) {
		if (obj.type == ET_DYN && obj.soname) {
			*soname = xstrdup(obj.soname);
			found = true;
		}
		elfobj_close(&obj);
	}
	free(why);
	munmap(map, size);
	return found;
}

/* True when the file at path is an ELF file that a loader runs (it names
   an interpreter); *elf gets whether it is ELF at all. */
static bool is_dynamic(const char *path, bool *elf)
{
	void *map;
	size_t size, length;
	const void *interp;
	char *why = NULL;
	bool dynamic = false;

	*elf = false;
	if (map_file(path, &map, &size, &why) < 0) {
		free(why);
		return false;
	}
	if (elfobj_find_section(map, size, ".interp", &interp, &length, &why) == 0) {
		*elf = true;
		dynamic = interp != NULL;
	}
	free(why);
	munmap(map, size);
	return dynamic;
}

static void copy_or_die(const char *from, const char *to)
{
	char *why;

	if (files_copy(from, to, true, &why) < 0)
		fatal("%s: cannot keep a copy for the benchmark: %s", from, why);
}

bool bench_keep(const struct session *s, const char *which, const struct compiles *built,
		struct bench_copy *copy)
{
	const char *output = s->options->output, *base = strrchr(output, '/');
	char *from = output[0] == '/' ? xstrdup(output) : xasprintf("%s/%s", s->use_dir, output), *why;
	size_t i, cap = 0;
	bool elf, ok = false;

	memset(copy, 0, sizeof(*copy));
	copy->dir = xasprintf("%s/bench/%s", s->store.config, which);
	copy->program = xasprintf("%s/%s", copy->dir, base ? base + 1 : output);
	is_dynamic(from, &elf);
	if (access(from, R_OK) < 0) {
		error("--output %s: %s: the build made no such program: %s", output, from, strerror(errno));
		goto out;
	}
	if (!elf) {
		error("--output %s: %s is not an ELF program (a libtool wrapper script? name the program it "
		      "runs, such as .libs/%s)", output, from, base ? base + 1 : output);
		goto out;
	}
	/* a fresh folder: no library of an earlier cycle lingers in it */
	if (files_remove(copy->dir, &why) < 0 || files_make_dir(copy->dir, &why) < 0)
		fatal("%s: cannot keep a copy for the benchmark: %s", from, why);
	copy_or_die(from, copy->program);
	for (i = 0; i < built->count; i++) {
		char *soname, *to;

		if (built->outputs[i].kind != OUTPUT_LINKED || !library_soname(built->outputs[i].path, &soname))
			continue;
		to = xasprintf("%s/%s", copy->dir, soname);
		copy_or_die(built->outputs[i].path, to);
		*ARRAY_PUSH(copy->sonames, copy->nsonames, cap) = soname;
		free(to);
	}
	ok = true;
out:
	free(from);
	return ok;
}

void bench_free(struct bench_copy *copy)
{
	size_t i;

	for (i = 0; i < copy->nsonames; i++)
		free(copy->sonames[i]);
	free(copy->sonames);
	free(copy->dir);
	free(copy->program);
	memset(copy, 0, sizeof(*copy));
}

/* LD_LIBRARY_PATH for the runs of copy: its folder first; a new string. */
static char *library_path(const struct bench_copy *copy)
{
	const char *old = getenv("LD_LIBRARY_PATH");

	return old && *old ? xasprintf("%s:%s", copy->dir, old) : xstrdup(copy->dir);
}

/* True when soname is among those of a or b. */
static bool made_by(const char *soname, const struct bench_copy *a, const struct bench_copy *b)
{
	size_t i;

	for (i = 0; i < a->nsonames; i++)
		if (!strcmp(a->sonames[i], soname))
			return true;
	for (i = 0; i < b->nsonames; i++)
		if (!strcmp(b->sonames[i], soname))
			return true;
	return false;
}

/* Asks the loader (ldd) which files the program of copy maps when run as
   the benchmark runs it, and checks that each library either build made
   is copy's own; false (with a message) when one is not. */
static bool loads_own(const struct bench_copy *copy, const char *label, const struct bench_copy *other)
{
	char *argv[] = { "ldd", copy->program, NULL }, *libpath = library_path(copy), *line, *save = NULL;
	struct proc_env env[] = { { "LD_LIBRARY_PATH", libpath } };
	struct proc_request rq = {
		.argv = argv, .env = env, .nenv = 1, .stdin_null = true, .out = PROC_CAPTURE, .err = PROC_CAPTURE,
	};
	struct proc_result result;
	bool elf, ok = true;

	if (!is_dynamic(copy->program, &elf) || (copy->nsonames == 0 && other->nsonames == 0)) {
		free(libpath);
		return true;
	}
	if (proc_exec(&rq, &result) != 0) {
		char *text = proc_failure(result.status, result.err);

		error("ldd %s: %s: cannot tell which libraries the benchmark loads", copy->program, text);
		free(text);
		ok = false;
	}
	for (line = strtok_r(result.out, "\n", &save); ok && line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(line, " => "), *name, *path, *own, *real_path, *real_own;

		if (!arrow)
			continue;
		name = xstrndup(line + strspn(line, " \t"), arrow - line - strspn(line, " \t"));
		path = xstrndup(arrow + 4, strcspn(arrow + 4, " "));
		own = xasprintf("%s/%s", copy->dir, name);
		real_path = realpath(path, NULL);
		real_own = realpath(own, NULL);
		if (made_by(name, copy, other) && (!real_path || !real_own || strcmp(real_path, real_own) != 0)) {
			error("bench: the %s program %s loads %s from %s, not its own copy %s: the benchmark would "
			      "not measure its build (an RPATH in the program, which the loader searches before "
			      "LD_LIBRARY_PATH, names the build folder?)", label, copy->program, name, path, own);
			ok = false;
		}
		free(name);
		free(path);
		free(own);
		free(real_path);
		free(real_own);
	}
	proc_result_free(&result);
	free(libpath);
	return ok;
}

int bench_run(struct session *s, const struct bench_copy *plain, const struct bench_copy *pgo)
{
	const char *command = s->options->bench, *bins[2] = { plain->program, pgo->program };
	char *libpaths[2] = { library_path(plain), library_path(pgo) };
	int runs = s->options->runs, i, k, status = 0;
	double *tp = xcalloc(runs, sizeof(double)), *to = xcalloc(runs, sizeof(double));
	double *ratio = xcalloc(runs, sizeof(double));

	if (!loads_own(plain, "plain", pgo) || !loads_own(pgo, "PGO", plain))
		status = 1;
	else
		steps_step("bench", "%s, %d runs of each build, alternating, after one warm-up run each", command,
			    runs);
	if (!status)
		progress_start("[bench] warm-up");
	for (i = -1; i < runs && !status; i++) {
		for (k = 0; k < 2 && !status; k++) {
			struct proc_env env[] = { { "PGO_BIN", bins[k] }, { "LD_LIBRARY_PATH", libpaths[k] } };
			struct jobs_left left;
			double seconds = 0;
			int run;

			progress_label("[bench] %s build, %s %d of %d", k ? "PGO" : "plain", i < 0 ? "warm-up" : "run",
				       i < 0 ? 1 : i + 1, i < 0 ? 1 : runs);
			run = jobs_shell(command, NULL, env, 2, "/dev/null", &seconds, &left);
			s->external += seconds + left.seconds;
			if (left.count && !proc_interrupted()) {
				progress_stop();
				error("benchmark '%s' with PGO_BIN=%s left %zu process%s running when it ended: %s; "
				      "pgo-run ended %s: %s would have run beside the next runs", command, bins[k],
				      left.count, left.count == 1 ? "" : "es", left.names, left.count == 1 ? "it" : "them",
				      left.count == 1 ? "it" : "they");
				status = 1;
			} else if (run != 0) {
				char *text = proc_describe(run);

				progress_stop();
				error("benchmark '%s' with PGO_BIN=%s failed: %s", command, bins[k], text);
				free(text);
				status = 1;
			} else if (i >= 0) {
				(k ? to : tp)[i] = seconds;
			}
			jobs_left_free(&left);
		}
		if (i >= 0 && !status)
			ratio[i] = tp[i] / to[i];
	}
	progress_stop();
	if (!status)
		steps_step("bench", "plain median %.3f s, PGO median %.3f s; speedup (median of the %d "
			    "pairwise ratios plain/PGO) %.3fx", median(tp, runs), median(to, runs), runs,
			    median(ratio, runs));
	free(tp);
	free(to);
	free(ratio);
	free(libpaths[0]);
	free(libpaths[1]);
	return status;
}
