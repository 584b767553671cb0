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

static int compare_longs(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of n times in microseconds (the mean of the middle two for
   an even n), in seconds; v is left as it was. */
static double median_seconds(const long *v, size_t n)
{
	long *sorted = xmalloc(n * sizeof(*sorted));
	double m;

	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_longs);
	m = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
	free(sorted);
	return m / 1e6;
}

/* The median, lowest and highest of n ratios (v is sorted). */
static void ratio_figures(double *v, size_t n, double *median, double *low, double *high)
{
	qsort(v, n, sizeof(*v), compare_doubles);
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*low = v[0];
	*high = v[n - 1];
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

/* The times of the runs, in microseconds, and what they give. */
struct bench_times {
	long *plain, *pgo;
	double *ratios;        /* plain/PGO of each run */
	double plain_median, pgo_median, speedup;
	double ratio_median, ratio_low, ratio_high;
};

/* Writes the times as JSON (format linkopt-pgo-bench, version 1, see
   pgo-run(1)) to path; false (with a message) when it cannot. */
static bool write_times(const char *path, const char *command, int runs, const struct bench_copy *plain,
			const struct bench_copy *pgo, const struct bench_times *t)
{
	char *buf = NULL, *why;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int i, k;
	bool ok;

	if (!f)
		fatal("%s: open_memstream failed: %s", path, strerror(errno));
	fprintf(f, "{");
	json_fprint_format(f, "linkopt-pgo-bench", 1);
	fprintf(f, "\"command\": ");
	json_fprint_string(f, command);
	fprintf(f, ", \"runs\": %d", runs);
	for (k = 0; k < 2; k++) {
		const long *v = k ? t->pgo : t->plain;

		fprintf(f, ",\n \"%s\": {\"program\": ", k ? "pgo" : "plain");
		json_fprint_string(f, (k ? pgo : plain)->program);
		fprintf(f, ", \"seconds\": [");
		for (i = 0; i < runs; i++)
			fprintf(f, "%s%ld.%06ld", i ? ", " : "", v[i] / 1000000, v[i] % 1000000);
		fprintf(f, "], \"median\": %.7f}", k ? t->pgo_median : t->plain_median);
	}
	fprintf(f, ",\n \"speedup\": %.6f,\n \"ratios\": [", t->speedup);
	for (i = 0; i < runs; i++)
		fprintf(f, "%s%.6f", i ? ", " : "", (double)t->plain[i] / (double)t->pgo[i]);
	fprintf(f, "], \"ratio_median\": %.6f}\n", t->ratio_median);
	if (fclose(f) != 0)
		fatal("%s: writing to a memory stream failed: %s", path, strerror(errno));
	ok = files_write(path, buf, size, false, &why) == 0;
	if (!ok) {
		error("%s", why);
		free(why);
	}
	free(buf);
	return ok;
}

/* Prints the figures of the runs: the medians, the speedup that follows
   from them, the spread of the per-run ratios, and where every run's time
   is kept. */
static void print_figures(int runs, const struct bench_times *t, const char *json)
{
	/* the shape of the line before the speedup was this ratio, which
	   scripts read (bench/buildsys/run) */
	steps_step("bench", "plain median %.6f s, PGO median %.6f s; speedup (plain median / PGO median, %d run%s "
		    "each) %.3fx", t->plain_median, t->pgo_median, runs, runs == 1 ? "" : "s", t->speedup);
	steps_step("bench", "per-run ratios plain/PGO: median %.3fx, lowest %.3fx, highest %.3fx", t->ratio_median,
		    t->ratio_low, t->ratio_high);
	steps_step("bench", "every run's time: %s", json);
}

int bench_run(struct session *s, const struct bench_copy *plain, const struct bench_copy *pgo)
{
	const char *command = s->options->bench, *bins[2] = { plain->program, pgo->program };
	char *libpaths[2] = { library_path(plain), library_path(pgo) };
	char *json = xasprintf("%s/bench/times.json", s->store.config);
	int runs = s->options->runs, i, k, status = 0;
	struct bench_times t = { 0 };

	t.plain = xcalloc(runs, sizeof(long));
	t.pgo = xcalloc(runs, sizeof(long));
	t.ratios = xcalloc(runs, sizeof(double));
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
				/* whole microseconds: the figures printed are then
				   exactly those of the runs printed */
				(k ? t.pgo : t.plain)[i] = (long)(seconds * 1e6 + 0.5);
			}
			jobs_left_free(&left);
		}
		if (i >= 0 && !status) {
			progress_stop();
			t.ratios[i] = (double)t.plain[i] / (double)t.pgo[i];
			steps_step("bench", "run %d: plain %ld.%06ld s, PGO %ld.%06ld s (plain/PGO %.3f)", i + 1,
				    t.plain[i] / 1000000, t.plain[i] % 1000000, t.pgo[i] / 1000000, t.pgo[i] % 1000000,
				    t.ratios[i]);
			if (i + 1 < runs)
				progress_start("[bench] run %d", i + 2);
		}
	}
	progress_stop();
	if (!status) {
		t.plain_median = median_seconds(t.plain, runs);
		t.pgo_median = median_seconds(t.pgo, runs);
		t.speedup = t.plain_median / t.pgo_median;
		ratio_figures(t.ratios, runs, &t.ratio_median, &t.ratio_low, &t.ratio_high);
		if (!write_times(json, command, runs, plain, pgo, &t))
			status = 1;
		else
			print_figures(runs, &t, json);
	}
	free(t.plain);
	free(t.pgo);
	free(t.ratios);
	free(json);
	free(libpaths[0]);
	free(libpaths[1]);
	return status;
}
