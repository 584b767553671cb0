#define _GNU_SOURCE
#include "check.h"
#include "proc.h"
#include "progress.h"
#include "util.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t check_running;

/* command with %b replaced by binary and %d by folder, each quoted. */
static char *expand(const char *command, const char *binary, const char *folder)
{
	char *file = xasprintf("'%s'", binary), *dir = xasprintf("'%s'", folder), *out = xstrdup(""), *next;
	const char *p = command, *at;

	for (;;) {
		const char *b = strstr(p, "%b"), *d = strstr(p, "%d");

		if (!b && !d)
			break;
		at = b && (!d || b < d) ? b : d;
		next = xasprintf("%s%.*s%s", out, (int)(at - p), p, at == b ? file : dir);
		free(out);
		out = next;
		p = at + 2;
	}
	next = xasprintf("%s%s", out, p);
	free(out);
	free(file);
	free(dir);
	return next;
}

/* A growing list of strings. */
struct names {
	char **items;
	size_t count, capacity;
};

static void names_add(struct names *n, const char *s)
{
	*ARRAY_PUSH(n->items, n->count, n->capacity) = xstrdup(s);
}

static void names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->count; i++)
		free(n->items[i]);
	free(n->items);
	memset(n, 0, sizeof(*n));
}

/* The text after prefix at the start of s, or NULL. */
static const char *after(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) ? NULL : s + n;
}

/* Reads one file of the loader's log (LD_DEBUG=files,libs): the programs
   it started ("initialize program: NAME") and the files it loaded (the
   last "trying file=" of a search, a name with a '/', "calling init:"). */
static void read_log(const char *path, struct names *programs, struct names *loaded)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *searching = NULL, *tried = NULL;
	size_t cap = 0;
	ssize_t len;

	while (f && (len = getline(&line, &cap, f)) > 0) {
		char *text = strstr(line, ":\t"), *end;
		const char *v;

		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (!text)
			continue;
		text += 2;
		text += strspn(text, " \t");
		if ((v = after(text, "initialize program: "))) {
			names_add(programs, v);
		} else if ((v = after(text, "find library="))) {
			free(searching);
			searching = xstrndup(v, strcspn(v, " "));
			free(tried);
			tried = NULL;
		} else if ((v = after(text, "trying file="))) {
			free(tried);
			tried = xstrdup(v);
		} else if ((v = after(text, "calling init: "))) {
			names_add(loaded, v);
		} else if ((v = after(text, "file=")) && (end = strstr(v, ";  generating link map"))) {
			char *name = xstrndup(v, strcspn(v, " "));

			if (strchr(name, '/'))
				names_add(loaded, name);
			else if (tried && searching && !strcmp(searching, name))
				names_add(loaded, tried);
			free(name);
		}
	}
	if (f)
		fclose(f);
	free(line);
	free(searching);
	free(tried);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* path (absolute) relative to the current folder, as a shell command
   names a program: with a '/' in it, so that it is not looked up on PATH,
   and usable after "./" too; a new string. */
static char *relative_to_here(const char *path)
{
	char *here = realpath(".", NULL), *out;
	const char *p = path, *h;
	size_t common = 0, i;
	int up = 0;

	if (!here)
		return xstrdup(path);
	/* the longest common folder */
	for (i = 0; here[i] && here[i] == path[i]; i++)
		if (here[i] == '/')
			common = i;
	if (!here[i] && (path[i] == '/' || !path[i]))
		common = i;
	for (h = here + common; *h; h++)
		up += *h == '/';
	p = path + common + (path[common] == '/');
	out = xstrdup("");
	while (up-- > 0) {
		char *next = xasprintf("%s../", out);

		free(out);
		out = next;
	}
	if (!*out) {
		free(out);
		out = xasprintf("./%s", p);
	} else {
		char *next = xasprintf("%s%s", out, p);

		free(out);
		out = next;
	}
	free(here);
	return out;
}

/* Whether the program the loader started under the name started (as the
   check's process saw it, relative to where it ran) is binary. */
static bool same_program(const char *started, const char *binary)
{
	char *a = realpath(started, NULL), *b = realpath(binary, NULL);
	bool same = a && b && !strcmp(a, b);
	const char *s = started, *t = binary;

	free(a);
	free(b);
	while (!strncmp(s, "./", 2))
		s += 2;
	while (!strncmp(t, "./", 2))
		t += 2;
	return same || !strcmp(s, t);
}

/* Why the loader's log in folder does not show the run starting (or, for a
   library, loading) binary, which %b or %d names: a new message, or NULL
   when it does. */
static char *unproved(const struct check_setup *setup, const char *log_folder, const char *binary,
		      const char *lib_folder)
{
	struct names programs = { 0 }, loaded = { 0 };
	DIR *d = opendir(log_folder);
	struct dirent *e;
	char *why = NULL, *other = NULL;
	bool ours = false;
	size_t i;

	while (d && (e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", log_folder, e->d_name);
		read_log(p, &programs, &loaded);
		free(p);
	}
	if (d)
		closedir(d);
	if (!setup->library) {
		for (i = 0; i < programs.count && !ours; i++)
			ours = same_program(programs.items[i], binary);
		if (!ours)
			why = xasprintf("no process of the check ran %%b (%s)", binary);
	} else {
		for (i = 0; i < loaded.count; i++) {
			const char *p = loaded.items[i], *b = base_name(p);
			size_t n = strlen(lib_folder);

			if (strcmp(b, setup->soname) && strcmp(b, setup->name))
				continue;
			if (!strcmp(p, binary) || (!strncmp(p, lib_folder, n) && p[n] == '/'))
				ours = true;
			else if (!other)
				other = xstrdup(p);
		}
		if (other)
			why = xasprintf("the check loaded %s, not the library under test: its host finds %s before "
					"LD_LIBRARY_PATH (a DT_RPATH: readelf -d HOST; link the host with "
					"-Wl,--enable-new-dtags for a DT_RUNPATH), or the check sets LD_LIBRARY_PATH "
					"itself",
					other, setup->soname);
		else if (!ours)
			why = xasprintf("no process of the check loaded %s (%%d, with LD_LIBRARY_PATH=%%d, or %%b)",
					setup->soname);
	}
	free(other);
	names_free(&programs);
	names_free(&loaded);
	return why;
}

void check_run(const struct check_setup *setup, const char *file, struct check_run *run)
{
	static int round;
	char *bin_folder = xasprintf("%s/check", setup->work), *lib_folder = xasprintf("%s/check-lib", setup->work);
	char *binary = xasprintf("%s/%s", bin_folder, setup->name);
	char *lib_link = xasprintf("%s/%s", lib_folder, setup->soname);
	char *log_folder = xasprintf("%s/loader-log-%d", setup->work, ++round);
	char *log_prefix = xasprintf("%s/pid", log_folder), *target = realpath(file, NULL);
	char *relative = relative_to_here(binary), *cmd = expand(setup->command, relative, lib_folder);
	char *argv[] = { "sh", "-c", cmd, NULL };
	struct proc_env env[] = { { "LD_DEBUG", "files,libs" }, { "LD_DEBUG_OUTPUT", log_prefix } };
	struct proc_request rq = { .argv = argv, .stdin_null = true, .out = PROC_CAPTURE, .err = PROC_CAPTURE,
				   .env = env, .nenv = setup->dynamic ? 2 : 0, .timeout = setup->timeout,
				   .running = &check_running };
	struct proc_result r;

	memset(run, 0, sizeof(*run));
	if ((mkdir(bin_folder, 0700) < 0 && errno != EEXIST) || (mkdir(lib_folder, 0700) < 0 && errno != EEXIST) ||
	    mkdir(log_folder, 0700) < 0)
		fatal("%s: cannot create a folder for the check: %s", setup->work, strerror(errno));
	unlink(binary);
	unlink(lib_link);
	if (!target || symlink(target, binary) < 0 || symlink(target, lib_link) < 0)
		fatal("%s: cannot link to %s: %s", binary, file, strerror(errno));
	/* the label names the file under test, not the check's link to it */
	{
		char *shown_file = relative_to_here(target), *shown = expand(setup->command, shown_file, lib_folder);

		progress_start("linkopt-bolt: check: %s", shown);
		free(shown);
		free(shown_file);
	}
	proc_exec(&rq, &r);
	progress_stop();
	run->status = r.status;
	run->timed_out = r.timed_out;
	run->seconds = r.seconds;
	run->output = xasprintf("%s%s", r.out ? r.out : "", r.err ? r.err : "");
	proc_result_free(&r);
	if (setup->dynamic && !r.timed_out)
		run->unproved = unproved(setup, log_folder, binary, lib_folder);
	output_remove_folder(log_folder);
	unlink(binary);
	unlink(lib_link);
	free(bin_folder);
	free(lib_folder);
	free(binary);
	free(lib_link);
	free(log_folder);
	free(log_prefix);
	free(target);
	free(relative);
	free(cmd);
}

void check_run_free(struct check_run *run)
{
	free(run->output);
	free(run->unproved);
	memset(run, 0, sizeof(*run));
}

/* s with every "(0x...)" taken out and every file replaced by "FILE"; a
   new string. */
static char *normalize(const char *s, const char *file)
{
	size_t n = strlen(file), cap = strlen(s) + 1, len = 0;
	char *out = xmalloc(cap + 1);

	while (*s) {
		if (!strncmp(s, " (0x", 4) && strchr(s + 4, ')')) {
			s = strchr(s + 4, ')') + 1;
		} else if (n && !strncmp(s, file, n)) {
			grow_array(&out, &cap, len + 5, 1);
			memcpy(out + len, "FILE", 4);
			len += 4;
			s += n;
		} else {
			grow_array(&out, &cap, len + 2, 1);
			out[len++] = *s++;
		}
	}
	out[len] = '\0';
	return out;
}

int check_load(const char *interp, const char *file, double timeout, char **output)
{
	/* ld.so looks a name without a slash up as a library: ./ it */
	char *path = strchr(file, '/') ? xstrdup(file) : xasprintf("./%s", file);
	char *argv[] = { (char *)interp, path, NULL };
	struct proc_env env[] = {
		{ "LD_TRACE_LOADED_OBJECTS", "1" }, { "LD_BIND_NOW", "1" }, { "LD_WARN", "1" },
	};
	struct proc_request rq = { .argv = argv, .stdin_null = true, .out = PROC_CAPTURE, .err = PROC_CAPTURE,
				   .env = env, .nenv = 3, .timeout = timeout, .running = &check_running };
	struct proc_result r;
	char *all;

	proc_exec(&rq, &r);
	all = xasprintf("%s%s", r.out ? r.out : "", r.err ? r.err : "");
	*output = normalize(all, path);
	free(all);
	free(path);
	proc_result_free(&r);
	return r.status;
}

char *check_own_interpreter(void)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
	unsigned long n = getauxval(AT_PHNUM), i;
	uintptr_t bias = 0;

	if (!ph)
		return NULL;
	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = (uintptr_t)ph - ph[i].p_vaddr;
	for (i = 0; i < n; i++)
		if (ph[i].p_type == PT_INTERP)
			return xstrdup((const char *)(bias + ph[i].p_vaddr));
	return NULL;
}
