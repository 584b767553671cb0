/* link: the outputs' records, their relinks and their build-ids. */
#define _GNU_SOURCE
#include "startup.h"

#include "elfobj.h"
#include "linkcmd.h"
#include "proc.h"
#include "record.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <glob.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const startup_linker_names[] = { "gnu-ld", "gold", "lld", "mold", NULL };
const char *const startup_placement_names[] = { "head", "cold-start", "data-first", "best", NULL };

void startup_step(const struct startup_job *job, const char *fmt, ...)
{
	va_list ap;

	if (!job->progress)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The first of the candidates (relative to the folder of this program)
   that exists; a new absolute string, or NULL. */
static char *beside(const char *own, const char *const *candidates)
{
	int i;

	for (i = 0; candidates[i]; i++) {
		char *probe = xasprintf("%s/%s", own, candidates[i]), *real = realpath(probe, NULL);

		free(probe);
		if (real && access(real, R_OK) == 0)
			return real;
		free(real);
	}
	return NULL;
}

void link_find_tools(struct startup_job *job)
{
	static const char *const pagein[] = { "pagein", "../pagein/pagein", NULL };
	static const char *const deporder[] = { "deporder", "../deporder/deporder", NULL };
	static const char *const prefetch[] = { "../lib/linkopt/linkopt-prefetch.o",
						"../prefetch/linkopt-prefetch.o", NULL };
	static const char *const cut[] = { "../lib/linkopt/linkopt-cut.o", "../prefetch/linkopt-cut.o", NULL };
	static const char *const bolt[] = { "linkopt-bolt", "../linkopt-bolt/linkopt-bolt", NULL };
	static const char *const pfstat[] = { "pfstat", "../pfstat/pfstat", NULL };
	char exe[PATH_MAX], *own;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		fatal("/proc/self/exe: cannot read link: %s", strerror(errno));
	exe[n] = '\0';
	own = dirname(exe);
	job->tools.pagein = beside(own, pagein);
	job->tools.deporder = beside(own, deporder);
	job->tools.prefetch = beside(own, prefetch);
	job->tools.cut = beside(own, cut);
	job->tools.bolt = beside(own, bolt);
	job->tools.pfstat = beside(own, pfstat);
	if (!job->tools.pagein || !job->tools.deporder)
		fatal("cannot find %s in %s nor in the linkopt tree it would be in",
		      !job->tools.pagein ? "pagein" : "deporder", own);
	if (!job->tools.prefetch && job->linker == LINKER_GNU_LD)
		fatal("cannot find linkopt-prefetch.o in %s/../lib/linkopt nor in the linkopt tree", own);
	if (!job->tools.bolt && job->bolt)
		fatal("cannot find linkopt-bolt in %s nor in the linkopt tree", own);
}

void link_check_linker(const struct startup_job *job)
{
	static const char *const programs[] = { [LINKER_GOLD] = "ld.gold", [LINKER_LLD] = "ld.lld",
						[LINKER_MOLD] = "ld.mold" };
	static const char *const options[] = { [LINKER_GOLD] = "--section-ordering-file",
					       [LINKER_LLD] = "--symbol-ordering-file",
					       [LINKER_MOLD] = "--symbol-ordering-file" };
	const char *name = startup_linker_names[job->linker];
	char *help_argv[] = { (char *)programs[job->linker], "--help", NULL };
	char *version_argv[] = { (char *)programs[job->linker], "--version", NULL };
	char *help, *version;

	if (job->linker == LINKER_GNU_LD)
		return;
	if (!(help = proc_capture(help_argv, NULL)))
		fatal("--linker=%s: cannot run %s --help: is %s installed?", name, programs[job->linker], name);
	if (!strstr(help, options[job->linker])) {
		version = proc_capture(version_argv, NULL);
		if (version)
			version[strcspn(version, "\n")] = '\0';
		fatal("--linker=%s: %s (%s) has no %s option, so it cannot link with an order: use another linker, or "
		      "a %s that has it", name, programs[job->linker], version ? version : "version unknown",
		      options[job->linker], name);
	}
	free(help);
}

/* Whether the file at path is newer than every file argv names that
   exists (its inputs); false when it does not exist. */
static bool newer_than_inputs(const char *path, const char *cwd, char *const *argv, struct timespec *when)
{
	struct stat out, in;
	char **operands, *why;
	bool newer = true;
	int i;

	if (stat(path, &out) < 0)
		return false;
	*when = out.st_mtim;
	operands = linkcmd_operands(argv, &why);
	if (!operands)
		fatal("%s", why);
	for (i = 0; operands[i] && newer; i++) {
		char *input;
		bool older;

		if (operands[i][0] == '@')
			continue;
		input = record_absolute(cwd, operands[i]);
		older = stat(input, &in) == 0 && S_ISREG(in.st_mode) &&
			(in.st_mtim.tv_sec > out.st_mtim.tv_sec ||
			 (in.st_mtim.tv_sec == out.st_mtim.tv_sec && in.st_mtim.tv_nsec > out.st_mtim.tv_nsec));
		free(input);
		newer = !older;
	}
	linkcmd_free(operands);
	return newer;
}

/* The order file of an output for the job's linker and placement. */
char *order_path(const struct startup_job *job, const char *name)
{
	char *suffix = xasprintf("%s%s%s.order", startup_linker_names[job->linker],
				 job->placement == PLACEMENT_HEAD ? "" : ".",
				 job->placement == PLACEMENT_HEAD ? "" : startup_placement_names[job->placement]);
	char *path = record_path(job->dir, name, suffix);

	free(suffix);
	return path;
}

/* The name in the job's folder of the output at path (a --target with a
   slash): the record whose output it is; dies when none is. */
static const char *name_of_path(const struct startup_job *job, const char *path)
{
	char *pattern = record_path(job->dir, "*", "link"), *absolute, *want, *why, cwd[PATH_MAX];
	const char *name = NULL;
	glob_t found;
	size_t i;

	if (!getcwd(cwd, sizeof(cwd)))
		fatal("getcwd failed: %s", strerror(errno));
	absolute = record_absolute(cwd, path);
	want = realpath(absolute, NULL);
	if (glob(pattern, 0, NULL, &found) == 0) {
		for (i = 0; i < found.gl_pathc && !name; i++) {
			struct record rec;
			char *real;

			if (record_read(found.gl_pathv[i], RECORD_LINK_TAG, &rec, &why) < 0) {
				free(why);
				continue;
			}
			real = rec.count ? realpath(rec.strings[0], NULL) : NULL;
			if (rec.count && (!strcmp(rec.strings[0], absolute) || (real && want && !strcmp(real, want)))) {
				char *base = strrchr(found.gl_pathv[i], '/') + 1;

				name = xstrndup(base, strlen(base) - strlen(".link"));
			}
			free(real);
			record_free(&rec);
		}
		globfree(&found);
	}
	if (!name)
		fatal("%s: no link of it is recorded in %s: build it through linkopt-cc first", path, job->dir);
	free(pattern);
	free(absolute);
	free(want);
	return name;
}

void link_load(const struct startup_job *job, struct startup_output *o, const char *name)
{
	if (strchr(name, '/'))
		name = name_of_path(job, name);
	char *path = record_path(job->dir, name, "link"), *why;
	struct record rec;
	struct stat st;

	o->name = name;
	if (record_read(path, RECORD_LINK_TAG, &rec, &why) < 0) {
		if (errno == ENOENT)
			fatal("%s: no link of '%s' recorded: build it through linkopt-cc first "
			      "(CC=\"linkopt-cc --dir=%s gcc\", or CMake's linkopt_startup())", path, name, job->dir);
		fatal("%s", why);
	}
	if (rec.count < 3)
		fatal("%s: holds no link command", path);
	o->record_strings = rec.strings;
	o->path = rec.strings[0];
	o->cwd = rec.strings[1];
	o->argv = rec.strings + 2;
	o->map = record_path(job->dir, name, "map");
	o->plain = record_path(job->dir, name, "default");
	o->state = record_path(job->dir, name, "state");
	o->order = order_path(job, name);
	o->bolt_trace = record_path(job->dir, name, "bolt.trace");
	if (lstat(o->path, &st) == 0 && S_ISLNK(st.st_mode))
		fatal("%s: is a symbolic link: name the file the link writes (a relink would replace the link)", o->path);
	o->keep_time = newer_than_inputs(o->path, o->cwd, o->argv, &o->time);
	free(path);
}

char **link_job_flags(const struct startup_job *job)
{
	static char *flags[4];
	int k = 0;

	if (job->relr)
		flags[k++] = "-Wl,-z,pack-relative-relocs";
	if (job->bolt)
		flags[k++] = "-Wl,--emit-relocs";
	flags[k] = NULL;
	return flags;
}

void link_to(const struct startup_job *job, const struct startup_output *o, const char *path, char **extra,
	     const char *what)
{
	char *why;

	if (!link_try(job, o, path, extra, what, &why))
		fatal("%s", why);
}

bool link_try(const struct startup_job *job, const struct startup_output *o, const char *path, char **extra,
	      const char *what, char **why)
{
	char **job_flags = link_job_flags(job), **argv;
	int n = linkcmd_count(extra), m = linkcmd_count(job_flags), i;
	char **all = xcalloc(n + m + 1, sizeof(*all));
	struct proc_request request = { .stdin_null = true, .dir = o->cwd, .out = PROC_CAPTURE, .err = PROC_CAPTURE };
	struct proc_result result;

	for (i = 0; i < n; i++)
		all[i] = extra[i];
	for (i = 0; i < m; i++)
		all[n + i] = job_flags[i];
	/* path is a file of the records' folder, never the output: linked
	   there by its own name, so that its map names it */
	argv = linkcmd_rewrite(o->argv, path, all);
	request.argv = argv;
	startup_step(job, "%s: linking %s", o->name, what);
	if (unlink(path) < 0 && errno != ENOENT)
		fatal("%s: cannot remove: %s", path, strerror(errno));
	if (proc_exec(&request, &result) != 0) {
		unlink(path);
		if (result.err && *result.err)
			fputs(result.err, stderr);
		*why = xasprintf("%s: the link %s failed (%s) in %s: %s", o->name, what, proc_describe(result.status),
				 o->cwd, proc_command_line(argv));
		proc_result_free(&result);
		free(argv);
		free(all);
		return false;
	}
	proc_result_free(&result);
	free(argv);
	free(all);
	return true;
}

void link_install(const struct startup_output *o, const char *from)
{
	char *temporary = xasprintf("%s.linkopt-tmp", o->path), buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	struct stat st;
	ssize_t got;

	if (in < 0 || fstat(in, &st) < 0)
		fatal("%s: cannot open: %s", from, strerror(errno));
	unlink(temporary);
	out = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
	if (out < 0)
		fatal("%s: cannot create: %s", temporary, strerror(errno));
	while ((got = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, got) != got) {
			unlink(temporary);
			fatal("%s: write failed: %s", temporary, strerror(errno));
		}
	if (got < 0 || fchmod(out, st.st_mode & 07777) < 0 || close(out) < 0) {
		unlink(temporary);
		fatal("%s: cannot copy %s: %s", temporary, from, strerror(errno));
	}
	close(in);
	if (o->keep_time) {
		struct timespec times[2] = { o->time, o->time };

		/* the build's own rules take a relinked output for a rebuilt one
		   and would relink what depends on it, without the order */
		if (utimensat(AT_FDCWD, temporary, times, 0) < 0)
			warn("%s: cannot keep the time of %s: %s", temporary, o->path, strerror(errno));
	}
	if (rename(temporary, o->path) < 0)
		fatal("%s: cannot rename onto %s: %s", temporary, o->path, strerror(errno));
	free(temporary);
}

/* The build-id of path into hex; false (and *why) when it has none or
   cannot be read. */
static bool read_build_id(const char *path, char *hex, size_t size, char **why)
{
	struct elf_object elf;
	void *data;
	size_t bytes;
	bool found;

	if (map_file(path, &data, &bytes, why) < 0)
		return false;
	if (elfobj_open_linked(&elf, path, data, bytes, why) < 0) {
		munmap(data, bytes);
		return false;
	}
	found = elfobj_build_id(&elf, hex, size);
	elfobj_close(&elf);
	munmap(data, bytes);
	if (!found)
		*why = xasprintf("%s: has no build-id, so no trace can be proven to be of it: link it with "
				 "-Wl,--build-id", path);
	return found;
}

void link_build_id(const char *path, char *hex, size_t size)
{
	char *why;

	if (!read_build_id(path, hex, size, &why))
		fatal("%s", why);
}

bool link_has_build_id(const struct startup_output *o, const char *hex)
{
	char now[128], *why;

	if (!read_build_id(o->path, now, sizeof(now), &why)) {
		free(why);
		return false;
	}
	return !strcmp(now, hex);
}

const char *link_kind(const char *path)
{
	struct elf_object elf;
	struct elf_segment *segments;
	void *data;
	size_t bytes, count, i;
	uint64_t table_offset, table_size;
	const char *kind = NULL;
	bool interpreter = false;
	char *why;

	if (map_file(path, &data, &bytes, &why) < 0) {
		free(why);
		return NULL;
	}
	if (elfobj_open_linked(&elf, path, data, bytes, &why) < 0) {
		free(why);
		munmap(data, bytes);
		return NULL;
	}
	segments = elfobj_segments(&elf, &count, &table_offset, &table_size, &why);
	if (!segments && count)
		free(why);
	for (i = 0; i < count; i++)
		interpreter |= segments[i].type == PT_INTERP;
	if (elf.type == ET_EXEC)
		kind = interpreter ? "program" : "static program";
	else if (elf.type == ET_DYN)
		kind = interpreter ? "PIE" : "shared library";
	free(segments);
	elfobj_close(&elf);
	munmap(data, bytes);
	return kind;
}

/* The verdicts of readelf -p .GCC.command.line FILE: for each object (or
   archive member) that records its options, whether -fprofile-use is
   among them; adds to *pgo and *other, and the names of the others to
   *names. */
static void pgo_verdicts(const char *file, const char *cwd, size_t *pgo, size_t *other, char **names)
{
	char *argv[] = { "readelf", "-p", ".GCC.command.line", (char *)file, NULL };
	struct proc_request request = { .argv = argv, .dir = cwd, .stdin_null = true, .out = PROC_CAPTURE,
					.err = PROC_DISCARD };
	struct proc_result result;
	char *line, *save = NULL, *member = xstrdup(file);
	bool seen = false, used = false;

	proc_exec(&request, &result);
	for (line = strtok_r(result.out, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
		if (!line || !strncmp(line, "File: ", 6)) {
			if (seen) {
				if (used) {
					++*pgo;
				} else {
					char *more = xasprintf("%s %s", *names, member);

					free(*names);
					*names = more;
					++*other;
				}
			}
			if (!line)
				break;
			free(member);
			member = xstrdup(line + 6);
			seen = used = false;
			continue;
		}
		if (!strncmp(line, "  [", 3))
			seen = true;
		if (strstr(line, "-fprofile-use"))
			used = true;
	}
	free(member);
	proc_result_free(&result);
}

void link_check_pgo_built(const struct startup_output *o)
{
	size_t pgo = 0, other = 0, n;
	char *names = xstrdup("");
	int i;

	for (i = 1; o->argv[i]; i++) {
		n = strlen(o->argv[i]);
		if (o->argv[i][0] == '-' || n < 3 || (strcmp(o->argv[i] + n - 2, ".o") && strcmp(o->argv[i] + n - 2, ".a")))
			continue;
		pgo_verdicts(o->argv[i], o->cwd, &pgo, &other, &names);
	}
	if (other)
		fatal("%s: inputs not built by pgo-run's optimized build (no -fprofile-use among the options they "
		      "record):%s", o->name, names);
	if (!pgo)
		fatal("%s: none of its inputs was built by pgo-run's optimized build (none records -fprofile-use): "
		      "PGO_TARGET must build them", o->name);
	free(names);
}
