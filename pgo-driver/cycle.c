#include "cycle.h"
#include "proc.h"
#include "json.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum build_kind { BUILD_PLAIN, BUILD_GENERATE, BUILD_USE };

static const char *const build_names[] = {
	[BUILD_PLAIN] = "plain build",
	[BUILD_GENERATE] = "instrumented build",
	[BUILD_USE] = "optimized build",
};

struct cycle {
	const struct pgo_options *options;
	struct store store;
	char *gen_dir;    /* absolute folder of the instrumented build */
	char *use_dir;    /* absolute folder of the plain and optimized builds */
	char *gen_data;   /* the folder compiled into -fprofile-generate= */
	char *logs;
	double start;
	double external;  /* seconds spent in builds, workloads and benchmark runs */
};

/* Warnings of the optimized build, per kind and per source. */
struct build_warnings {
	size_t mismatch, missing, missing_unexpected;
	struct strmap per_source; /* source -> counts (struct source_count) */
	char **missing_names;     /* profile file names gcc looked for and did not find */
	size_t nmissing_names;
};

struct source_count {
	size_t mismatch, missing;
};

static char *absolute(const char *path)
{
	char resolved[4096];

	if (!realpath(path, resolved))
		fatal("%s: cannot resolve folder: %s", path, strerror(errno));
	return xstrdup(resolved);
}

static void print_tail(const char *log, int lines)
{
	FILE *f = fopen(log, "r");
	char **ring = xcalloc(lines, sizeof(*ring)), *line = NULL;
	size_t cap = 0, count = 0, i;

	if (!f) {
		free(ring);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		free(ring[count % lines]);
		ring[count % lines] = xstrdup(line);
		count++;
	}
	fclose(f);
	i = count > (size_t)lines ? count - lines : 0;
	for (; i < count; i++) {
		fprintf(stderr, "    %s", ring[i % lines]);
		free(ring[i % lines]);
	}
	free(line);
	free(ring);
}

static char *compiler_version(void)
{
	const char *cc = getenv("CC");
	char *argv[] = { (char *)(cc && *cc ? cc : "cc"), "--version", NULL };
	char *out = proc_capture(argv, NULL), *nl;

	if (!out)
		return xasprintf("%s (version unknown)", argv[0]);
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return out;
}

static char *describe_configuration(const struct pgo_options *o)
{
	char *version = compiler_version();
	char *d = xasprintf("compiler: %s\nCFLAGS: %s\nLDFLAGS: %s\nbuild: %s\n", version,
			    getenv("CFLAGS") ? getenv("CFLAGS") : "",
			    getenv("LDFLAGS") ? getenv("LDFLAGS") : "", o->build ? o->build : "make");

	free(version);
	return d;
}

/* The compiler flags and make variables carry these paths unquoted. */
static bool flag_safe(const char *path, const char *what)
{
	if (!strpbrk(path, " \t\n'\"\\$#"))
		return true;
	error("%s: %s must not hold blanks, quotes, '#' or '$': the compiler flags name it", path, what);
	return false;
}

static bool cycle_open(struct cycle *c, const struct pgo_options *o, bool create)
{
	char *description = describe_configuration(o), *lock;
	bool ok;
	int fd;

	memset(c, 0, sizeof(*c));
	c->options = o;
	c->start = proc_now();
	ok = store_open(&c->store, o->store_path, description, create);
	free(description);
	if (!ok)
		return false;
	c->gen_data = xasprintf("%s/gen", c->store.config);
	c->logs = xasprintf("%s/logs", c->store.config);
	if (!create)
		return true;
	if (!dir_create(c->gen_data) || !dir_create(c->logs)) {
		error("%s: cannot create: %s", c->store.config, strerror(errno));
		return false;
	}
	/* two cycles on one configuration would swap profiles under each
	   other; the lock goes when the process ends */
	lock = xasprintf("%s/lock", c->store.config);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		error("%s: %s", lock, fd < 0 ? strerror(errno) :
		      "another pgo-run is using this configuration of the store");
		free(lock);
		return false;
	}
	free(lock);
	c->gen_dir = absolute(o->gen_dir);
	c->use_dir = absolute(o->use_dir);
	return flag_safe(c->store.config, "the store") && flag_safe(c->gen_dir, "--gen-dir") &&
	       flag_safe(c->use_dir, "--use-dir");
}

static void cycle_close(struct cycle *c)
{
	free(c->gen_dir);
	free(c->use_dir);
	free(c->gen_data);
	free(c->logs);
	store_close(&c->store);
}

static void step(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void step(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("[%s] ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static char *log_path(struct cycle *c, const char *name)
{
	char *path = xasprintf("%s/%s.log", c->logs, name);

	unlink(path);
	return path;
}

/* Runs the clean command, then the build, in dir with the flags of kind;
   false (with a message and the log's tail) when either fails. */
static bool build(struct cycle *c, enum build_kind kind, const char *dir, long *started)
{
	const struct pgo_options *o = c->options;
	const char *name = build_names[kind];
	char *profile = store_profile_path(&c->store);
	char *cflags, *ldflags, *log, *cflags_env, *ldflags_env, *what, *status_text;
	double seconds = 0, clean_seconds = 0;
	int status = 0;
	bool ok = false;

	switch (kind) {
	case BUILD_PLAIN:
		cflags = xstrdup("");
		ldflags = xstrdup("");
		break;
	case BUILD_GENERATE:
		/* -ftest-coverage only writes the notes files (for the checks and
		   show); prefer-atomic keeps counters of threaded runs exact; the
		   prefix path makes profile names relative to the build folder */
		cflags = xasprintf("-fprofile-generate=%s -fprofile-update=prefer-atomic -ftest-coverage "
				   "-fprofile-prefix-path=%s", c->gen_data, dir);
		ldflags = xasprintf("-fprofile-generate=%s -fprofile-update=prefer-atomic", c->gen_data);
		break;
	default:
		/* a mismatch is counted and reported, not a build failure */
		cflags = xasprintf("-fprofile-use=%s -fprofile-prefix-path=%s -Wno-error=coverage-mismatch",
				   profile, dir);
		ldflags = xasprintf("-fprofile-use=%s -Wno-error=coverage-mismatch", profile);
		break;
	}
	cflags_env = xasprintf("%s%s%s", getenv("CFLAGS") ? getenv("CFLAGS") : "",
			       getenv("CFLAGS") && *cflags ? " " : "", cflags);
	ldflags_env = xasprintf("%s%s%s", getenv("LDFLAGS") ? getenv("LDFLAGS") : "",
				getenv("LDFLAGS") && *ldflags ? " " : "", ldflags);
	struct proc_env env[] = {
		{ "PGO_CFLAGS", cflags },
		{ "PGO_LDFLAGS", ldflags },
		{ "CFLAGS", cflags_env },
		{ "LDFLAGS", ldflags_env },
	};
	/* make gets the flags as variables (mk/pgo.mk appends them); any other
	   build system reads them from CFLAGS and LDFLAGS in the environment */
	size_t nenv = o->build ? 4 : 2;

	log = log_path(c, kind == BUILD_PLAIN ? "plain-build" : kind == BUILD_GENERATE ? "gen-build" : "use-build");
	if (o->build)
		what = xasprintf("%s", o->build);
	else
		what = xasprintf("make PGO_CFLAGS='%s' PGO_LDFLAGS='%s'", cflags, ldflags);
	step(name, "%s (in %s)", what, dir);
	if (o->clean || !o->build) {
		char *clean_argv[] = { "make", "clean", NULL };

		status = o->clean ? proc_shell(o->clean, dir, env, nenv, log, &clean_seconds)
				  : proc_run(clean_argv, dir, env, nenv, log, &clean_seconds);
		c->external += clean_seconds;
		if (status != 0) {
			status_text = proc_describe(status);
			error("%s: the clean command failed: %s (log %s)", name, status_text, log);
			print_tail(log, 15);
			free(status_text);
			goto out;
		}
	}
	*started = time(NULL);
	if (o->build) {
		status = proc_shell(o->build, dir, env, nenv, log, &seconds);
	} else {
		char *pc = xasprintf("PGO_CFLAGS=%s", cflags), *pl = xasprintf("PGO_LDFLAGS=%s", ldflags);
		char *argv[] = { "make", pc, pl, NULL };

		status = proc_run(argv, dir, env, nenv, log, &seconds);
		free(pc);
		free(pl);
	}
	c->external += seconds;
	if (status != 0) {
		status_text = proc_describe(status);
		error("%s failed: %s (log %s)", name, status_text, log);
		print_tail(log, 15);
		free(status_text);
		goto out;
	}
	step(name, "done in %.1f s (clean %.1f s)", seconds, clean_seconds);
	ok = true;
out:
	free(what);
	free(log);
	free(cflags);
	free(ldflags);
	free(cflags_env);
	free(ldflags_env);
	free(profile);
	return ok;
}

/* s quoted for sh: inside single quotes, each ' written as '\''. */
static char *shell_quote(const char *s)
{
	size_t n = 3;
	const char *p;
	char *out, *q;

	for (p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	out = q = xmalloc(n);
	*q++ = '\'';
	for (p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *p;
		}
	}
	*q++ = '\'';
	*q = '\0';
	return out;
}

/* The shell command for a workload: a script file named as it is (pgo-run
   workload.sh) runs from here, with sh when it is not executable; anything
   else is a shell command already. */
static char *workload_command(const char *workload)
{
	struct stat st;
	char *path, *command;

	if (stat(workload, &st) < 0 || !S_ISREG(st.st_mode))
		return xstrdup(workload);
	path = strchr(workload, '/') ? xstrdup(workload) : xasprintf("./%s", workload);
	command = shell_quote(path);
	if (access(path, X_OK) < 0) {
		char *with_sh = xasprintf("sh %s", command);

		free(command);
		command = with_sh;
	}
	free(path);
	return command;
}

static int path_components(const char *path)
{
	int n = 0;

	for (; *path; path++)
		if (*path == '/' && path[1] && path[1] != '/')
			n++;
	return n;
}

/* Runs every workload into its own folder under raw; false when one fails
   or writes no profile data. */
static bool train(struct cycle *c, const char *raw)
{
	const struct pgo_options *o = c->options;
	char strip[16];
	size_t i;

	snprintf(strip, sizeof(strip), "%d", path_components(c->gen_data));
	for (i = 0; i < o->nworkloads; i++) {
		const struct workload *w = &o->workloads[i];
		char *dir = xasprintf("%s/%zu", raw, i), *name = xasprintf("train-%zu", i + 1);
		char *log = log_path(c, name), *label = xasprintf("train %zu/%zu", i + 1, o->nworkloads);
		/* each workload writes into its own folder: GCOV_PREFIX goes in
		   front of the compiled-in path once its components are stripped */
		struct proc_env env[] = {
			{ "GCOV_PREFIX", dir },
			{ "GCOV_PREFIX_STRIP", strip },
		};
		double seconds = 0;
		size_t nfiles = 0, k;
		char **files, *command;
		int status;
		bool ok = false;

		if (!dir_create(dir))
			fatal("%s: cannot create: %s", dir, strerror(errno));
		command = workload_command(w->command);

		step(label, "%s (weight %g)", command, w->weight);
		status = proc_shell(command, NULL, env, 2, log, &seconds);
		free(command);
		c->external += seconds;
		files = files_list(dir, ".gcda", 0, &nfiles);
		if (status != 0) {
			char *text = proc_describe(status);

			error("workload '%s' failed: %s (log %s); the profile in use is unchanged",
			      w->command, text, log);
			print_tail(log, 10);
			free(text);
		} else if (nfiles == 0) {
			error("workload '%s' wrote no profile data: it does not run the instrumented "
			      "program, or the program did not exit normally; the profile in use is unchanged",
			      w->command);
		} else {
			step(label, "%zu profile file%s in %.2f s", nfiles, nfiles == 1 ? "" : "s", seconds);
			ok = true;
		}
		for (k = 0; k < nfiles; k++)
			free(files[k]);
		free(files);
		free(dir);
		free(name);
		free(log);
		free(label);
		if (!ok)
			return false;
	}
	return true;
}

/* Copies the profile files of from into the existing folder to. */
static bool copy_profile(const char *from, const char *to)
{
	size_t n, i;
	char **files = files_list(from, ".gcda", 0, &n);
	bool ok = true;

	for (i = 0; i < n && ok; i++) {
		char *src = xasprintf("%s/%s", from, files[i]);
		char *dst = xasprintf("%s/%s", to, files[i]);

		if (!file_copy(src, dst)) {
			error("%s: cannot copy to %s: %s", src, dst, strerror(errno));
			ok = false;
		}
		free(src);
		free(dst);
	}
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return ok;
}

/* Merges dirs with weights into out (an existing empty folder): gcov-tool
   merges two folders at a time, so N folders take N-1 chained merges, each
   carrying the sum so far with weight 1. */
static bool merge_weighted(char **dirs, const double *weights, size_t n, const char *out,
			   const char *scratch, const char *log)
{
	char *previous = NULL;
	size_t i;
	bool ok = true;

	if (n == 1)
		return copy_profile(dirs[0], out);
	for (i = 1; i < n && ok; i++) {
		char *target = i + 1 == n ? xstrdup(out) : xasprintf("%s/merge-%zu", scratch, i);
		char *w = xasprintf("%g,%g", i == 1 ? weights[0] : 1.0, weights[i]);
		char *argv[] = { "gcov-tool", "merge", "-w", w, "-o", target,
				 (char *)(previous ? previous : dirs[0]), dirs[i], NULL };
		int status = proc_run(argv, NULL, NULL, 0, log, NULL);

		if (status != 0) {
			char *text = proc_describe(status);

			error("gcov-tool merge -w %s %s %s failed: %s (log %s)", w, argv[6], dirs[i], text, log);
			print_tail(log, 10);
			free(text);
			ok = false;
		}
		free(w);
		free(previous);
		previous = target;
	}
	free(previous);
	return ok;
}

/* The sources behind a notes file, as gcov-dump lists them (FUNCTION
   records name the file each function comes from); absolute paths added
   to map and list. */
static void notes_sources(const char *notes, struct strmap *seen, char ***list, size_t *n, size_t *cap)
{
	char *argv[] = { "gcov-dump", (char *)notes, NULL };
	char *out = proc_capture(argv, NULL), *line, *save = NULL, *cwd = NULL;

	if (!out) {
		warn("%s: gcov-dump failed: cannot record the sources for the stale check", notes);
		return;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, ":cwd: "), *q, *file, *path;
		void **slot;

		if (p) {
			free(cwd);
			cwd = xstrdup(p + 6);
			continue;
		}
		if (!strstr(line, "FUNCTION ") || !(p = strchr(line, '`')) || !(p = strstr(p, "' ")))
			continue;
		file = p + 2;
		for (q = file; *q && !(q[0] == ':' && q[1] >= '0' && q[1] <= '9'); q++)
			;
		*q = '\0';
		if (!*file)
			continue;
		path = file[0] == '/' || !cwd ? xstrdup(file) : xasprintf("%s/%s", cwd, file);
		slot = strmap_slot(seen, path);
		if (*slot) {
			free(path);
			continue;
		}
		*slot = path;
		*ARRAY_PUSH(*list, *n, *cap) = path;
	}
	free(cwd);
	free(out);
}

static bool name_in(char **list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* Fills meta's objects (with has_data) and sources from the notes folder of
   profile. */
static void describe_profile(const char *profile, struct profile_meta *meta)
{
	char *notes_dir = xasprintf("%s/notes", profile);
	size_t nnotes, i, cap_o = 0, cap_d = 0, cap_s = 0, cap_h = 0;
	char **notes = files_list(notes_dir, ".gcno", 0, &nnotes);
	struct strmap seen = { 0 };

	meta->objects = NULL;
	meta->nobjects = 0;
	meta->sources = NULL;
	meta->nsources = 0;
	for (i = 0; i < nnotes; i++) {
		char *name = xstrndup(notes[i], strlen(notes[i]) - 5);
		char *gcda = xasprintf("%s/%s.gcda", profile, name);
		char *gcno = xasprintf("%s/%s", notes_dir, notes[i]);

		grow_array(&meta->has_data, &cap_d, meta->nobjects + 1, sizeof(bool));
		meta->has_data[meta->nobjects] = access(gcda, R_OK) == 0;
		*ARRAY_PUSH(meta->objects, meta->nobjects, cap_o) = name;
		notes_sources(gcno, &seen, &meta->sources, &meta->nsources, &cap_s);
		free(gcda);
		free(gcno);
		free(notes[i]);
	}
	free(notes);
	grow_array(&meta->hashes, &cap_h, meta->nsources + 1, sizeof(uint64_t));
	for (i = 0; i < meta->nsources; i++)
		if (!file_hash(meta->sources[i], &meta->hashes[i]))
			meta->hashes[i] = 0;
	strmap_free(&seen);
	free(notes_dir);
}

/* An object as the build folder names it: profile names turn '/' into '#'. */
static const char *object_path(const char *name)
{
	static char text[4096];
	char *p;

	snprintf(text, sizeof(text), "%s", name);
	for (p = text; *p; p++)
		if (*p == '#')
			*p = '/';
	return text;
}

/* Prints the objects without data (a check, not an error: no workload ran
   their code, or they belong to a program no workload runs). */
static void report_objects(const char *label, const struct profile_meta *meta)
{
	size_t i, without = 0;

	for (i = 0; i < meta->nobjects; i++)
		without += !meta->has_data[i];
	step(label, "%zu object%s instrumented, %zu with profile data, %zu without%s",
	     meta->nobjects, meta->nobjects == 1 ? "" : "s", meta->nobjects - without, without,
	     without ? ":" : "");
	for (i = 0; i < meta->nobjects; i++)
		if (!meta->has_data[i])
			printf("    no data: %s\n", object_path(meta->objects[i]));
}

/* Merges the training output, checks it and installs it as the profile in
   use; false leaves the previous profile in place. */
static bool merge_and_install(struct cycle *c, const char *raw, long gen_started)
{
	const struct pgo_options *o = c->options;
	double start = proc_now();
	char *folder = store_new_profile(&c->store), *notes_dir = xasprintf("%s/notes", folder);
	char *log = log_path(c, "merge"), **dirs = xcalloc(o->nworkloads, sizeof(*dirs));
	struct profile_meta meta = { 0 };
	double *weights = meta.weights = xcalloc(o->nworkloads, sizeof(*weights));
	size_t nnotes, i;
	char **notes = files_list(c->gen_dir, ".gcno", gen_started, &nnotes);
	bool ok = false;

	for (i = 0; i < o->nworkloads; i++) {
		dirs[i] = xasprintf("%s/%zu", raw, i);
		weights[i] = o->workloads[i].weight;
	}
	if (nnotes == 0) {
		error("%s: the instrumented build wrote no notes files (.gcno): does the build use "
		      "the flags (include mk/pgo.mk, or read CFLAGS with --build)?", c->gen_dir);
		goto out;
	}
	if (!merge_weighted(dirs, weights, o->nworkloads, folder, raw, log))
		goto out;
	if (!dir_create(notes_dir))
		fatal("%s: cannot create: %s", notes_dir, strerror(errno));
	for (i = 0; i < nnotes; i++) {
		char *src = xasprintf("%s/%s", c->gen_dir, notes[i]);
		char *name = profile_name(notes[i]);
		char *dst = xasprintf("%s/%s.gcno", notes_dir, name);

		if (!file_copy(src, dst))
			fatal("%s: cannot copy to %s: %s", src, dst, strerror(errno));
		free(src);
		free(name);
		free(dst);
	}
	describe_profile(folder, &meta);
	meta.trained = time(NULL);
	meta.workloads = xcalloc(o->nworkloads, sizeof(char *));
	meta.nworkloads = o->nworkloads;
	for (i = 0; i < o->nworkloads; i++)
		meta.workloads[i] = xstrdup(o->workloads[i].command);
	report_objects("merge", &meta);
	{
		size_t with = 0;

		for (i = 0; i < meta.nobjects; i++)
			with += meta.has_data[i];
		if (with == 0) {
			error("no instrumented object got profile data: the workloads ran another build "
			      "of the program, or the profile names do not match the notes");
			goto out;
		}
	}
	if (!meta_write(folder, &meta) || !store_commit_profile(&c->store, folder))
		goto out;
	step("merge", "profile of %zu workload%s installed in %.2f s: %s", o->nworkloads,
	     o->nworkloads == 1 ? "" : "s", proc_now() - start, folder);
	ok = true;
out:
	if (!ok && !tree_remove(folder))
		warn("%s: cannot remove: %s", folder, strerror(errno));
	for (i = 0; i < o->nworkloads; i++)
		free(dirs[i]);
	for (i = 0; i < nnotes; i++)
		free(notes[i]);
	free(notes);
	free(dirs);
	free(folder);
	free(notes_dir);
	free(log);
	meta_free(&meta);
	return ok;
}

/* The sources of meta whose content changed (or vanished) since training;
   returns how many, printing each under label when label is set. */
static size_t stale_sources(const struct profile_meta *meta, const char *label)
{
	size_t i, changed = 0;

	for (i = 0; i < meta->nsources; i++) {
		uint64_t h;

		if (file_hash(meta->sources[i], &h) && h == meta->hashes[i])
			continue;
		changed++;
		if (label)
			printf("    changed since training: %s\n", meta->sources[i]);
	}
	return changed;
}

/* The text between the first pair of quotes (ASCII or UTF-8) after p. */
static char *quoted(const char *p)
{
	static const char *const open[] = { "'", "\xe2\x80\x98", "`" };
	static const char *const close[] = { "'", "\xe2\x80\x99", "'" };
	size_t k;

	for (k = 0; k < 3; k++) {
		const char *a = strstr(p, open[k]), *b;

		if (!a)
			continue;
		a += strlen(open[k]);
		b = strstr(a, close[k]);
		if (b)
			return xstrndup(a, b - a);
	}
	return NULL;
}

static void parse_warnings(const char *log, const struct profile_meta *meta, struct build_warnings *w)
{
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t cap = 0, cap_m = 0;

	memset(w, 0, sizeof(*w));
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		bool mismatch = strstr(line, "coverage-mismatch]") != NULL;
		bool missing = strstr(line, "[-Wmissing-profile]") != NULL;
		struct source_count **slot;
		char *colon, *source;

		if (!mismatch && !missing)
			continue;
		colon = strchr(line, ':');
		source = colon ? xstrndup(line, colon - line) : xstrdup("?");
		slot = (struct source_count **)strmap_slot(&w->per_source, source);
		if (!*slot)
			*slot = xcalloc(1, sizeof(**slot));
		else
			free(source);
		if (mismatch) {
			w->mismatch++;
			(*slot)->mismatch++;
		} else {
			char *path = quoted(colon ? colon : line), *base, *name;

			w->missing++;
			(*slot)->missing++;
			/* "profile for function 'f' not found": a function the
			   training never saw, so the sources changed */
			if (!path || strlen(path) < 5 || strcmp(path + strlen(path) - 5, ".gcda") != 0) {
				w->missing_unexpected++;
				free(path);
				continue;
			}
			base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
			name = xstrdup(base);
			free(path);
			if (strlen(name) > 5 && !strcmp(name + strlen(name) - 5, ".gcda"))
				name[strlen(name) - 5] = '\0';
			/* an object known to have run no code has no data by design */
			{
				size_t i;
				bool expected = false;

				for (i = 0; i < meta->nobjects; i++)
					if (!meta->has_data[i] && !strcmp(meta->objects[i], name))
						expected = true;
				if (!expected)
					w->missing_unexpected++;
			}
			if (!name_in(w->missing_names, w->nmissing_names, name))
				*ARRAY_PUSH(w->missing_names, w->nmissing_names, cap_m) = name;
			else
				free(name);
		}
	}
	free(line);
	fclose(f);
}

static void free_warnings(struct build_warnings *w)
{
	size_t i;

	for (i = 0; i < w->per_source.capacity; i++) {
		if (w->per_source.slots[i].key) {
			free((char *)w->per_source.slots[i].key);
			free(w->per_source.slots[i].value);
		}
	}
	strmap_free(&w->per_source);
	for (i = 0; i < w->nmissing_names; i++)
		free(w->missing_names[i]);
	free(w->missing_names);
	memset(w, 0, sizeof(*w));
}

/* Length of the longest tail of a and b, each taken whole or after a '-'
   in its last path component, that the two share; 0 when none.  Compilers
   name the profile of a one-step compile and link "OUTPUT-SOURCE". */
static size_t name_match(const char *a, const char *b)
{
	const char *ha = strrchr(a, '#') ? strrchr(a, '#') + 1 : a;
	const char *hb = strrchr(b, '#') ? strrchr(b, '#') + 1 : b;
	const char *p, *q;

	if (ha - a != hb - b || strncmp(a, b, ha - a) != 0)
		return 0;
	for (p = ha; p; p = strchr(p, '-') ? strchr(p, '-') + 1 : NULL)
		for (q = hb; q; q = strchr(q, '-') ? strchr(q, '-') + 1 : NULL)
			if (!strcmp(p, q))
				return strlen(p);
	return 0;
}

/* For each profile file the optimized build looked for and did not find,
   links the one profile file named after another output of the same source;
   returns how many it linked. */
static size_t link_output_names(struct cycle *c, const struct profile_meta *meta,
				const struct build_warnings *w)
{
	char *profile = store_profile_path(&c->store);
	size_t i, j, linked = 0;

	for (i = 0; i < w->nmissing_names; i++) {
		const char *want = w->missing_names[i];
		size_t best = 0, count = 0, pick = 0;

		for (j = 0; j < meta->nobjects; j++) {
			size_t m;

			if (!meta->has_data[j] || !strcmp(meta->objects[j], want))
				continue;
			m = name_match(meta->objects[j], want);
			if (m > best) {
				best = m;
				count = 1;
				pick = j;
			} else if (m && m == best) {
				count++;
			}
		}
		if (count == 1) {
			char *from = xasprintf("%s/%s.gcda", profile, meta->objects[pick]);
			char *to = xasprintf("%s/%s.gcda", profile, want);

			warn("output names differ between the builds: the instrumented build wrote '%s.gcda', "
			     "the optimized build reads '%s.gcda'; using the first for the second",
			     meta->objects[pick], want);
			if (!file_copy(from, to))
				error("%s: cannot copy to %s: %s", from, to, strerror(errno));
			else
				linked++;
			free(from);
			free(to);
		} else if (count > 1) {
			warn("output names differ between the builds: '%s.gcda' matches several profile files",
			     want);
		}
	}
	free(profile);
	return linked;
}

static void print_warnings(const struct build_warnings *w)
{
	size_t i;

	step("optimized build", "%zu coverage-mismatch warning%s, %zu missing-profile warning%s "
	     "(%zu for objects with no data by design)", w->mismatch, w->mismatch == 1 ? "" : "s",
	     w->missing, w->missing == 1 ? "" : "s", w->missing - w->missing_unexpected);
	for (i = 0; i < w->per_source.capacity; i++) {
		const struct strmap_slot *s = &w->per_source.slots[i];
		const struct source_count *n = s->value;

		if (s->key)
			printf("    %s: %zu coverage-mismatch, %zu missing-profile\n", s->key, n->mismatch,
			       n->missing);
	}
}

/* The optimized build, with the output-name check; returns 0, or 1 on a
   failed build or a finding (mismatched or unexpectedly missing profiles). */
static int use_build(struct cycle *c)
{
	char *profile = store_profile_path(&c->store), *log = xasprintf("%s/use-build.log", c->logs);
	struct profile_meta meta = { 0 };
	struct build_warnings w;
	long started;
	int status = 1;

	if (!meta_read(profile, &meta)) {
		error("%s: no profile to build with", profile);
		goto out;
	}
	if (!build(c, BUILD_USE, c->use_dir, &started))
		goto out;
	parse_warnings(log, &meta, &w);
	if (w.nmissing_names && link_output_names(c, &meta, &w)) {
		free_warnings(&w);
		if (!build(c, BUILD_USE, c->use_dir, &started))
			goto out;
		parse_warnings(log, &meta, &w);
	}
	print_warnings(&w);
	if (w.mismatch)
		error("the profile does not match the sources in %zu place%s: sources changed since "
		      "training (see 'pgo-run status'), or the builds differ; log %s", w.mismatch,
		      w.mismatch == 1 ? "" : "s", log);
	if (w.missing_unexpected)
		error("%zu object%s found no profile data although the instrumented build made them "
		      "(log %s)", w.missing_unexpected, w.missing_unexpected == 1 ? "" : "s", log);
	status = w.mismatch || w.missing_unexpected;
	free_warnings(&w);
out:
	meta_free(&meta);
	free(profile);
	free(log);
	return status;
}

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

/* A duration for people: "42 s", "5 min", "3 h", "2 days". */
static const char *age(long seconds)
{
	static char text[32];

	if (seconds < 120)
		snprintf(text, sizeof(text), "%ld s", seconds);
	else if (seconds < 7200)
		snprintf(text, sizeof(text), "%ld min", seconds / 60);
	else if (seconds < 172800)
		snprintf(text, sizeof(text), "%ld h", seconds / 3600);
	else
		snprintf(text, sizeof(text), "%ld days", seconds / 86400);
	return text;
}

static char *keep_output(struct cycle *c, const char *which)
{
	char *dir = xasprintf("%s/bench/%s", c->store.config, which);
	const char *base = strrchr(c->options->output, '/');
	char *from = c->options->output[0] == '/' ? xstrdup(c->options->output)
						   : xasprintf("%s/%s", c->use_dir, c->options->output);
	char *to = xasprintf("%s/%s", dir, base ? base + 1 : c->options->output);

	if (!dir_create(dir) || !file_copy(from, to) || chmod(to, 0755) < 0)
		fatal("%s: cannot keep a copy for the benchmark in %s: %s", from, to, strerror(errno));
	free(dir);
	free(from);
	return to;
}

/* Runs the plain and the PGO program alternately; 1 when a run fails. */
static int bench(struct cycle *c, const char *plain, const char *pgo)
{
	int runs = c->options->runs, i, k;
	double *tp = xcalloc(runs, sizeof(double)), *to = xcalloc(runs, sizeof(double));
	double *ratio = xcalloc(runs, sizeof(double)), mp, mo, mr;
	const char *bins[2] = { plain, pgo };
	int status = 0;

	step("bench", "%s, %d runs of each build, alternating, after one warm-up run each",
	     c->options->bench, runs);
	for (i = -1; i < runs && !status; i++) {
		for (k = 0; k < 2; k++) {
			struct proc_env env[] = { { "PGO_BIN", bins[k] } };
			double seconds = 0;
			int s = proc_shell(c->options->bench, NULL, env, 1, "/dev/null", &seconds);

			c->external += seconds;
			if (s != 0) {
				char *text = proc_describe(s);

				error("benchmark '%s' with PGO_BIN=%s failed: %s", c->options->bench, bins[k], text);
				free(text);
				status = 1;
				break;
			}
			if (i >= 0)
				(k ? to : tp)[i] = seconds;
		}
		if (i >= 0 && !status)
			ratio[i] = tp[i] / to[i];
	}
	if (!status) {
		mp = median(tp, runs);
		mo = median(to, runs);
		mr = median(ratio, runs);
		step("bench", "plain median %.3f s, PGO median %.3f s; speedup (median of the %d "
		     "pairwise ratios plain/PGO) %.3fx", mp, mo, runs, mr);
	}
	free(tp);
	free(to);
	free(ratio);
	return status;
}

int cycle_run(const struct pgo_options *o)
{
	struct cycle c;
	struct profile_meta meta = { 0 };
	char *plain = NULL, *pgo = NULL, *profile, *raw = NULL;
	long started;
	int status = 1;
	bool train_now = true;
	double own;

	if (!cycle_open(&c, o, true)) {
		cycle_close(&c);
		return 1;
	}
	profile = store_profile_path(&c.store);
	printf("[store] %s (configuration %s)\n", c.store.config, c.store.key);
	if (o->build && !o->clean)
		warn("no --clean command: the build must rebuild every object when the flags change");
	if (o->no_train) {
		if (!meta_read(profile, &meta)) {
			error("%s: no profile to build with: run pgo-run WORKLOAD first", profile);
			goto out;
		}
		if (stale_sources(&meta, "profile"))
			warn("sources changed since training: expect coverage-mismatch warnings");
		train_now = false;
	} else if (o->retrain_if_stale && meta_read(profile, &meta)) {
		size_t changed = stale_sources(&meta, "profile");

		if (changed == 0) {
			step("profile", "fresh (trained %s ago, no source changed): not retraining",
			     age(time(NULL) - meta.trained));
			train_now = false;
		} else {
			step("profile", "%zu source%s changed since training: retraining", changed,
			     changed == 1 ? "" : "s");
		}
	}
	if (o->bench) {
		if (!build(&c, BUILD_PLAIN, c.use_dir, &started))
			goto out;
		plain = keep_output(&c, "plain");
	}
	if (train_now) {
		raw = xasprintf("%s/raw.XXXXXX", c.store.config);
		if (!mkdtemp(raw))
			fatal("%s: cannot create: %s", raw, strerror(errno));
		if (!build(&c, BUILD_GENERATE, c.gen_dir, &started) || !train(&c, raw) ||
		    !merge_and_install(&c, raw, started))
			goto out;
	}
	status = use_build(&c);
	if (o->bench && !status) {
		pgo = keep_output(&c, "pgo");
		status = bench(&c, plain, pgo);
	}
out:
	if (raw && !tree_remove(raw))
		warn("%s: cannot remove: %s", raw, strerror(errno));
	own = proc_now() - c.start - c.external;
	step("total", "%.1f s: builds, workloads and benchmark %.1f s, pgo-run itself %.2f s (%.1f%%)",
	     proc_now() - c.start, c.external, own, c.external > 0 ? 100 * own / c.external : 0);
	if (status)
		step("total", "failed; the profile in use is %s", store_has_profile(&c.store) ?
		     "the last good one" : "none");
	free(plain);
	free(pgo);
	free(raw);
	free(profile);
	meta_free(&meta);
	cycle_close(&c);
	return status;
}

int cycle_status(const struct pgo_options *o)
{
	struct cycle c;
	struct profile_meta meta;
	char *profile, when[64];
	size_t i, changed = 1, without = 0;
	time_t trained;

	if (!cycle_open(&c, o, false)) {
		cycle_close(&c);
		return 1;
	}
	profile = store_profile_path(&c.store);
	printf("store: %s\nconfiguration: %s\n", c.store.root, c.store.key);
	for (const char *p = c.store.description; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		printf("  %.*s\n", len, p);
		p += len + (nl != NULL);
	}
	if (!meta_read(profile, &meta)) {
		printf("profile: none\n");
		goto out;
	}
	trained = meta.trained;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&trained));
	printf("profile: %s\ntrained: %s (%s ago)\n", profile, when, age(time(NULL) - trained));
	for (i = 0; i < meta.nworkloads; i++)
		printf("workload: weight %g: %s\n", meta.weights[i], meta.workloads[i]);
	for (i = 0; i < meta.nobjects; i++)
		without += !meta.has_data[i];
	printf("objects: %zu with data, %zu without\n", meta.nobjects - without, without);
	for (i = 0; i < meta.nobjects; i++)
		if (!meta.has_data[i])
			printf("    no data: %s\n", object_path(meta.objects[i]));
	printf("sources: %zu recorded\n", meta.nsources);
	changed = stale_sources(&meta, "status");
	printf("stale: %s\n", changed ? "yes" : "no");
out:
	meta_free(&meta);
	free(profile);
	cycle_close(&c);
	stdout_close_or_die();
	return changed ? 1 : 0;
}

/* True when dir holds at least one profile file. */
static bool has_profile_files(const char *dir)
{
	size_t n, i;
	char **files = files_list(dir, ".gcda", 0, &n);

	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return n > 0;
}

/* Copies the notes folder of one profile folder into another. */
static void copy_notes(const char *from_profile, const char *to_profile)
{
	char *from = xasprintf("%s/notes", from_profile), *to = xasprintf("%s/notes", to_profile);
	size_t n, i;
	char **notes = files_list(from, ".gcno", 0, &n);

	if (!dir_create(to))
		fatal("%s: cannot create: %s", to, strerror(errno));
	for (i = 0; i < n; i++) {
		char *a = xasprintf("%s/%s", from, notes[i]), *b = xasprintf("%s/%s", to, notes[i]);

		if (!file_copy(a, b))
			fatal("%s: cannot copy to %s: %s", a, b, strerror(errno));
		free(a);
		free(b);
		free(notes[i]);
	}
	free(notes);
	free(from);
	free(to);
}

int cycle_merge(const struct pgo_options *o)
{
	struct cycle c;
	struct profile_meta meta = { 0 }, fresh = { 0 };
	char *profile = NULL, *folder = NULL, *log = NULL, **dirs = NULL, *scratch = NULL;
	double *weights = NULL;
	size_t n = 0, i;
	int status = 1;

	if (!cycle_open(&c, o, true))
		goto out;
	profile = store_profile_path(&c.store);
	if (!meta_read(profile, &meta)) {
		error("%s: no profile to merge into: run pgo-run WORKLOAD first", profile);
		goto out;
	}
	n = 1 + (o->nworkloads ? o->nworkloads : 1);
	dirs = xcalloc(n, sizeof(*dirs));
	weights = xcalloc(n, sizeof(*weights));
	dirs[0] = xstrdup(profile);
	weights[0] = 1;
	for (i = 1; i < n; i++) {
		dirs[i] = xstrdup(o->nworkloads ? o->workloads[i - 1].command : c.gen_data);
		weights[i] = o->nworkloads ? o->workloads[i - 1].weight : 1;
		if (!has_profile_files(dirs[i])) {
			error("%s: no profile data to merge", dirs[i]);
			goto out;
		}
	}
	folder = store_new_profile(&c.store);
	scratch = xasprintf("%s/scratch", folder);
	log = log_path(&c, "merge");
	if (!dir_create(scratch) || !merge_weighted(dirs, weights, n, folder, scratch, log))
		goto out;
	tree_remove(scratch);
	copy_notes(profile, folder);
	describe_profile(folder, &fresh);
	/* staleness is judged against the sources as they were at training */
	for (i = 0; i < fresh.nsources; i++)
		free(fresh.sources[i]);
	free(fresh.sources);
	free(fresh.hashes);
	fresh.sources = meta.sources;
	fresh.hashes = meta.hashes;
	fresh.nsources = meta.nsources;
	meta.sources = NULL;
	meta.hashes = NULL;
	meta.nsources = 0;
	fresh.trained = meta.trained;
	fresh.nworkloads = meta.nworkloads + n - 1;
	fresh.workloads = xcalloc(fresh.nworkloads, sizeof(char *));
	fresh.weights = xcalloc(fresh.nworkloads, sizeof(double));
	for (i = 0; i < meta.nworkloads; i++) {
		fresh.workloads[i] = xstrdup(meta.workloads[i]);
		fresh.weights[i] = meta.weights[i];
	}
	for (i = 1; i < n; i++) {
		fresh.workloads[meta.nworkloads + i - 1] = xasprintf("merged from %s", dirs[i]);
		fresh.weights[meta.nworkloads + i - 1] = weights[i];
	}
	report_objects("merge", &fresh);
	if (!meta_write(folder, &fresh) || !store_commit_profile(&c.store, folder))
		goto out;
	step("merge", "merged %zu folder%s into the profile in use", n - 1, n == 2 ? "" : "s");
	status = 0;
	/* the data is in the profile now: merging it again would count it twice */
	if (!o->nworkloads && !(tree_remove(c.gen_data) && dir_create(c.gen_data)))
		warn("%s: cannot empty: %s", c.gen_data, strerror(errno));
out:
	if (status && folder && !tree_remove(folder))
		warn("%s: cannot remove: %s", folder, strerror(errno));
	for (i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	free(weights);
	free(folder);
	free(scratch);
	free(log);
	free(profile);
	meta_free(&meta);
	meta_free(&fresh);
	cycle_close(&c);
	stdout_close_or_die();
	return status;
}

static bool is_key(const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++)
		if (!strchr("0123456789abcdef", name[i]))
			return false;
	return i == 16;
}

int cycle_clean(const struct pgo_options *o)
{
	struct cycle c;
	char *target;
	struct dirent *e;
	DIR *dir = NULL;
	int status = 1;

	if (!cycle_open(&c, o, false))
		goto out;
	status = 0;
	if (access(c.store.root, F_OK) < 0)
		goto out;
	status = 1;
	/* refuse to delete a folder that is not a store (--store .): a store
	   holds nothing but configuration folders */
	dir = opendir(c.store.root);
	if (!dir) {
		error("%s: cannot open: %s", c.store.root, strerror(errno));
		goto out;
	}
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || is_key(e->d_name))
			continue;
		error("%s: not a pgo-run store (it holds '%s'): not removing it", c.store.root, e->d_name);
		goto out;
	}
	target = o->all ? c.store.root : c.store.config;
	if (!tree_remove(target)) {
		error("%s: cannot remove: %s", target, strerror(errno));
		goto out;
	}
	printf("removed %s\n", target);
	status = 0;
out:
	if (dir)
		closedir(dir);
	cycle_close(&c);
	stdout_close_or_die();
	return status;
}

struct hot_function {
	char *name, *file;
	long line;
	unsigned long long count;
};

static int compare_hot(const void *a, const void *b)
{
	const struct hot_function *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Adds the functions gcov's JSON output lists to hot. */
static void read_functions(const char *out, struct hot_function **hot, size_t *nhot, size_t *cap)
{
	const char *why;
	struct json *root = json_parse(out, &why);
	const struct json *files = json_get(root, "files");
	size_t i, k;

	if (!root) {
		warn("gcov --json-format: cannot read its output: %s", why);
		return;
	}
	for (i = 0; files && files->type == JSON_ARRAY && i < files->count; i++) {
		const struct json *file = files->items[i], *functions = json_get(file, "functions");
		const char *file_name = json_get_string(file, "file", "?");

		for (k = 0; functions && functions->type == JSON_ARRAY && k < functions->count; k++) {
			const struct json *f = functions->items[k];
			const char *name = json_get_string(f, "demangled_name", json_get_string(f, "name", NULL));
			const struct json *count = json_get(f, "execution_count");
			struct hot_function *h;

			if (!name || !count || count->type != JSON_NUMBER)
				continue;
			h = ARRAY_PUSH(*hot, *nhot, *cap);
			h->name = xstrdup(name);
			h->file = xstrdup(file_name);
			h->count = (unsigned long long)count->number;
			h->line = (long)json_get_number(f, "start_line", 0);
		}
	}
	json_free(root);
}

int cycle_show(const struct pgo_options *o)
{
	struct cycle c;
	struct profile_meta meta = { 0 };
	struct hot_function *hot = NULL;
	size_t nhot = 0, cap = 0, i;
	char *profile = NULL, *tmp;
	const char *tmpdir = getenv("TMPDIR");
	int status = 1;

	tmp = xasprintf("%s/pgo-show.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!cycle_open(&c, o, false))
		goto out;
	profile = store_profile_path(&c.store);
	if (!meta_read(profile, &meta)) {
		error("%s: no profile", profile);
		goto out;
	}
	if (!mkdtemp(tmp))
		fatal("%s: cannot create: %s", tmp, strerror(errno));
	for (i = 0; i < meta.nobjects; i++) {
		/* gcov wants the notes and the data side by side under one name */
		char *gcno = xasprintf("%s/notes/%s.gcno", profile, meta.objects[i]);
		char *gcda = xasprintf("%s/%s.gcda", profile, meta.objects[i]);
		char *a = xasprintf("%s/o%zu.gcno", tmp, i), *b = xasprintf("%s/o%zu.gcda", tmp, i);
		char *argv[] = { "gcov", "--json-format", "--stdout", a, NULL };
		char *out;

		if (meta.has_data[i] && file_copy(gcno, a) && file_copy(gcda, b)) {
			out = proc_capture(argv, tmp);
			if (out)
				read_functions(out, &hot, &nhot, &cap);
			else
				warn("%s: gcov failed", gcno);
			free(out);
		}
		free(gcno);
		free(gcda);
		free(a);
		free(b);
	}
	if (!tree_remove(tmp))
		warn("%s: cannot remove: %s", tmp, strerror(errno));
	if (nhot)
		qsort(hot, nhot, sizeof(*hot), compare_hot);
	printf("%14s  %s\n", "calls", "function (source:line)");
	for (i = 0; i < nhot && (int)i < o->top; i++)
		printf("%14llu  %s (%s:%ld)\n", hot[i].count, hot[i].name, hot[i].file, hot[i].line);
	status = nhot ? 0 : 1;
out:
	for (i = 0; i < nhot; i++) {
		free(hot[i].name);
		free(hot[i].file);
	}
	free(hot);
	free(tmp);
	free(profile);
	meta_free(&meta);
	cycle_close(&c);
	stdout_close_or_die();
	return status;
}
