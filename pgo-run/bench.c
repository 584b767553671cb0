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
#include <fcntl.h>
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

/* The median, lowest and highest of n ratios; v is left as it was. */
static void ratio_figures(const double *v, size_t n, double *median, double *low, double *high)
{
	double *sorted = xmalloc(n * sizeof(*sorted));

	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_doubles);
	*median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	*low = sorted[0];
	*high = sorted[n - 1];
	free(sorted);
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

/* True when the program at path is one the build (which began at since)
   wrote: one its compiler commands linked, or written since it began. */
static bool built_now(const char *path, const struct compiles *built, long since)
{
	char *real = realpath(path, NULL);
	struct stat st;
	size_t i;
	bool found = false;

	for (i = 0; real && i < built->count && !found; i++) {
		char *other;

		if (built->outputs[i].kind != OUTPUT_LINKED || !(other = realpath(built->outputs[i].path, NULL)))
			continue;
		found = !strcmp(real, other);
		free(other);
	}
	free(real);
	return found || (stat(path, &st) == 0 && st.st_mtime >= since);
}

bool bench_keep(const struct session *s, const char *which, const struct compiles *built, long since,
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
		error("--bench-program %s: %s: the build made no such program: %s", output, from, strerror(errno));
		goto out;
	}
	if (!elf) {
		error("--bench-program %s: %s is not an ELF program (a libtool wrapper script? name the program it "
		      "runs, such as .libs/%s)", output, from, base ? base + 1 : output);
		goto out;
	}
	/* a program left from another build would be timed as both */
	if (!built_now(from, built, since)) {
		error("--bench-program %s: the %s build did not write %s (no compiler command of it linked it, and it is "
		      "older than the build): the benchmark would time a program of another build", output,
		      which, from);
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

/* Where both builds run: the symbolic link bench/run, pointed at the folder
   of the build that runs next, so that PGO_BIN and LD_LIBRARY_PATH are the
   same strings for both (the size of the environment moves the stack, and
   with it the time a program takes). */
struct run_path {
	char *link; /* STORE/KEY/bench/run */
	char *bin;  /* link/NAME: PGO_BIN */
	char *libs; /* link, then the LD_LIBRARY_PATH we were given */
};

static void run_path_open(struct run_path *r, const struct session *s, const struct bench_copy *copy)
{
	const char *old = getenv("LD_LIBRARY_PATH");

	r->link = xasprintf("%s/bench/run", s->store.config);
	r->bin = xasprintf("%s/%s", r->link, strrchr(copy->program, '/') + 1);
	r->libs = old && *old ? xasprintf("%s:%s", r->link, old) : xstrdup(r->link);
}

static void run_path_close(struct run_path *r)
{
	free(r->link);
	free(r->bin);
	free(r->libs);
}

/* Points the link of r at the folder of copy (one rename); false (with a
   message) when it cannot. */
static bool run_as(const struct run_path *r, const struct bench_copy *copy)
{
	char *tmp = xasprintf("%s.new", r->link);
	bool ok = true;

	unlink(tmp);
	if (symlink(strrchr(copy->dir, '/') + 1, tmp) < 0 || rename(tmp, r->link) < 0) {
		error("%s: cannot point it at %s: %s", r->link, copy->dir, strerror(errno));
		unlink(tmp);
		ok = false;
	}
	free(tmp);
	return ok;
}

/* Sets the access time of the program of copy to the epoch, so that the
   next run shows whether it was read; false when it cannot. */
static bool forget_access(const struct bench_copy *copy)
{
	struct timespec times[2] = { { .tv_sec = 0, .tv_nsec = 0 }, { .tv_nsec = UTIME_OMIT } };

	return utimensat(AT_FDCWD, copy->program, times, 0) == 0;
}

/* True when the program of copy was read (run) since forget_access. */
static bool was_read(const struct bench_copy *copy)
{
	struct stat st;

	return stat(copy->program, &st) == 0 && st.st_atim.tv_sec != 0;
}

/* True when the file system of copy's program records that it was read:
   a run can then be checked for having run it. */
static bool access_recorded(const struct bench_copy *copy)
{
	char byte;
	int fd;
	bool read_one;

	if (!forget_access(copy))
		return false;
	fd = open(copy->program, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	read_one = read(fd, &byte, 1) == 1;
	close(fd);
	return read_one && was_read(copy);
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
   the benchmark runs it (through r), and checks that each library either
   build made is copy's own; false (with a message) when one is not. */
static bool loads_own(const struct run_path *r, const struct bench_copy *copy, const char *label,
		      const struct bench_copy *other)
{
	char *argv[] = { "ldd", r->bin, NULL }, *line, *save = NULL;
	struct proc_env env[] = { { "LD_LIBRARY_PATH", r->libs } };
	struct proc_request rq = {
		.argv = argv, .env = env, .nenv = 1, .stdin_null = true, .out = PROC_CAPTURE, .err = PROC_CAPTURE,
	};
	struct proc_result result;
	bool elf, ok = true;

	if (!is_dynamic(copy->program, &elf) || (copy->nsonames == 0 && other->nsonames == 0))
		return true;
	if (!run_as(r, copy))
		return false;
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
	return ok;
}

/* The times of the runs, in microseconds, and what they give. */
struct bench_times {
	long *plain, *pgo;
	double *ratios;        /* plain/PGO of each run */
	int *first;            /* 0 when the plain program ran first in the run, 1 when the PGO one did */
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
	fprintf(f, "], \"ratio_median\": %.6f,\n \"first\": [", t->ratio_median);
	for (i = 0; i < runs; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", t->first[i] ? "pgo" : "plain");
	fprintf(f, "]}\n");
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

/* Runs the command once with the program of copy, through r; *seconds
   gets its time.  Returns 0, or 1 (with a message) when it fails, leaves a
   process running, or did not run the program. */
static int run_once(struct session *s, const struct run_path *r, const struct bench_copy *copy,
		    const char *label, bool check_access, double *seconds)
{
	const char *command = s->options->bench;
	struct proc_env env[] = { { "PGO_BIN", r->bin }, { "LD_LIBRARY_PATH", r->libs } };
	struct jobs_left left;
	int run, status = 1;

	if (!run_as(r, copy))
		return 1;
	if (check_access && !forget_access(copy)) {
		error("%s: cannot reset its access time: %s", copy->program, strerror(errno));
		return 1;
	}
	run = jobs_shell(command, NULL, env, 2, "/dev/null", seconds, &left);
	s->external += *seconds + left.seconds;
	progress_stop();
	if (left.count && !proc_interrupted()) {
		error("benchmark '%s' with the %s program (PGO_BIN=%s, %s) left %zu process%s running when it "
		      "ended: %s; pgo-run ended %s: %s would have run beside the next runs", command, label,
		      r->bin, copy->program, left.count, left.count == 1 ? "" : "es", left.names,
		      left.count == 1 ? "it" : "them", left.count == 1 ? "it" : "they");
	} else if (run != 0) {
		char *text = proc_describe(run);

		error("benchmark '%s' with the %s program (PGO_BIN=%s, %s) failed: %s", command, label, r->bin,
		      copy->program, text);
		free(text);
	} else if (check_access && !was_read(copy)) {
		error("benchmark '%s' did not run PGO_BIN (%s, the %s program): it would time another program; "
		      "run \"$PGO_BIN\"", command, r->bin, label);
	} else {
		status = 0;
	}
	jobs_left_free(&left);
	return status;
}

int bench_run(struct session *s, const struct bench_copy *plain, const struct bench_copy *pgo)
{
	const char *command = s->options->bench;
	const struct bench_copy *copies[2] = { plain, pgo };
	static const char *const labels[2] = { "plain", "PGO" };
	char *json = xasprintf("%s/bench/times.json", s->store.config);
	int runs = s->options->runs, i, k, status = 0;
	struct bench_times t = { 0 };
	struct run_path r;
	bool check_access;

	run_path_open(&r, s, plain);
	t.plain = xcalloc(runs, sizeof(long));
	t.pgo = xcalloc(runs, sizeof(long));
	t.ratios = xcalloc(runs, sizeof(double));
	t.first = xcalloc(runs, sizeof(int));
	check_access = access_recorded(plain) && access_recorded(pgo);
	if (!check_access)
		warn("%s: its file system records no access times (noatime?): cannot check that the benchmark "
		     "runs PGO_BIN", plain->program);
	if (!loads_own(&r, plain, "plain", pgo) || !loads_own(&r, pgo, "PGO", plain))
		status = 1;
	else
		steps_step("bench", "%s, %d runs of each build after one warm-up run each, in pairs whose first "
			    "build takes turns (plain first in the warm-up and in odd runs), each as PGO_BIN=%s, a "
			    "link to the build's folder", command, runs, r.bin);
	for (i = -1; i < runs && !status; i++) {
		/* plain, PGO; PGO, plain; ...: a drift of the machine's speed
		   during the runs weighs on both alike */
		int first = i >= 0 && i % 2 == 1 ? 1 : 0;

		for (k = 0; k < 2 && !status; k++) {
			int b = k ? 1 - first : first;
			double seconds = 0;

			progress_start("[bench] %s build, %s %d of %d", labels[b], i < 0 ? "warm-up" : "run",
				       i < 0 ? 1 : i + 1, i < 0 ? 1 : runs);
			status = run_once(s, &r, copies[b], labels[b], check_access, &seconds);
			/* whole microseconds: the figures printed are then exactly
			   those of the runs printed */
			if (!status && i >= 0)
				(b ? t.pgo : t.plain)[i] = (long)(seconds * 1e6 + 0.5);
		}
		if (i >= 0 && !status) {
			t.first[i] = first;
			t.ratios[i] = (double)t.plain[i] / (double)t.pgo[i];
			steps_step("bench", "run %d: plain %ld.%06ld s, PGO %ld.%06ld s (plain/PGO %.3f)", i + 1,
				    t.plain[i] / 1000000, t.plain[i] % 1000000, t.pgo[i] / 1000000, t.pgo[i] % 1000000,
				    t.ratios[i]);
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
	free(t.first);
	free(json);
	run_path_close(&r);
	return status;
}
