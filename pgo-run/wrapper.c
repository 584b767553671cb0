#include "wrapper.h"
#include "files.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* pgo-cc: beside pgo-run in the build tree, in ../lib/linkopt once
   installed; a new string, or NULL. */
static char *find_pgo_cc(void)
{
	char exe[PATH_MAX], *dir, *probe;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	dir = dirname(exe);
	probe = xasprintf("%s/pgo-cc", dir);
	if (access(probe, X_OK) == 0)
		return probe;
	free(probe);
	probe = xasprintf("%s/../lib/linkopt/pgo-cc", dir);
	if (access(probe, X_OK) == 0) {
		char *real = realpath(probe, NULL);

		free(probe);
		return real;
	}
	free(probe);
	return NULL;
}

/* The program sh would run for name, looked up on PATH without the folder
   skip (the wrapper's own); an absolute new string, or NULL. */
static char *find_program(const char *name, const char *skip)
{
	const char *path = getenv("PATH"), *p;
	char cwd[PATH_MAX];

	if (strchr(name, '/')) {
		if (name[0] == '/')
			return xstrdup(name);
		return getcwd(cwd, sizeof(cwd)) ? xasprintf("%s/%s", cwd, name) : NULL;
	}
	for (p = path ? path : "/usr/bin:/bin"; p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char *dir = n ? xstrndup(p, n) : xstrdup("."), *candidate = xasprintf("%s/%s", dir, name);
		struct stat st;
		bool found = strcmp(dir, skip) != 0 && stat(candidate, &st) == 0 && S_ISREG(st.st_mode) &&
			     access(candidate, X_OK) == 0;

		free(dir);
		if (found && candidate[0] == '/')
			return candidate;
		if (found && getcwd(cwd, sizeof(cwd))) {
			char *absolute = xasprintf("%s/%s", cwd, candidate);

			free(candidate);
			return absolute;
		}
		free(candidate);
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

/* True when path is a file of its own (no symbolic link, no other hard
   link) with the mode files_write gives a program, that holds exactly
   text. */
static bool file_says(const char *path, const char *text)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t n = strlen(text);
	char *buf;
	struct stat st;
	ssize_t got;
	bool same;

	if (fd < 0)
		return false;
	buf = xmalloc(n + 2);
	got = read(fd, buf, n + 1);
	same = got == (ssize_t)n && memcmp(buf, text, n) == 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_nlink == 1 && (st.st_mode & 07777) == (0777 & ~file_creation_mask());
	close(fd);
	free(buf);
	return same;
}

/* Writes the script at path that runs pgo_cc with the compiler real,
   unless it already says so; false (with a message) when it cannot. */
static bool write_script(const char *path, const char *pgo_cc, const char *real)
{
	char *text, *why;
	bool ok = true;

	/* the script quotes both in '...' */
	if (strchr(real, '\'') || strchr(pgo_cc, '\'')) {
		error("%s: a compiler path must not hold a quote", strchr(real, '\'') ? real : pgo_cc);
		return false;
	}
	text = xasprintf("#!/bin/sh\n# pgo-run's wrapper of %s: pgo-cc adds the flags of the build pgo-run "
			 "runs (none outside pgo-run), see pgo-run(1)\nexec '%s' '%s' \"$@\"\n",
			 real, pgo_cc, real);
	/* a link there is replaced, never written through */
	if (!file_says(path, text) && files_write(path, text, strlen(text), true, &why) < 0) {
		error("cannot write the compiler wrapper: %s", why);
		free(why);
		ok = false;
	}
	free(text);
	return ok;
}

/* The wrapper of the compiler the variable name (CC or CXX) sets, in the
   folder bin/name: the variable's value with its first word replaced by
   the script; a new string, or NULL (with a message) when it cannot. */
static char *wrap_variable(const char *bin, const char *name, const char *pgo_cc)
{
	const char *value = getenv(name), *rest;
	char *word, *real, *dir, *script, *wrapped = NULL, *why;
	size_t n;

	value += strspn(value, " \t");
	n = strcspn(value, " \t");
	rest = value + n;
	word = xstrndup(value, n);
	real = find_program(word, bin);
	dir = xasprintf("%s/%s", bin, name);
	script = xasprintf("%s/%s", dir, strrchr(word, '/') ? strrchr(word, '/') + 1 : word);
	if (!real)
		error("%s=%s: cannot find the compiler '%s'", name, getenv(name), word);
	else if (files_make_dir(dir, &why) < 0) {
		error("%s", why);
		free(why);
	} else if (write_script(script, pgo_cc, real)) {
		wrapped = xasprintf("%s%s", script, rest);
	}
	free(word);
	free(real);
	free(dir);
	free(script);
	return wrapped;
}

bool wrapper_open(struct wrapper *w, const char *store_root)
{
	static const char *const names[] = { "cc", "gcc", "c++", "g++" };
	char *pgo_cc = find_pgo_cc(), *why;
	const char *path = getenv("PATH");
	size_t i, found = 0;
	bool ok = false;

	memset(w, 0, sizeof(*w));
	w->bin = xasprintf("%s/bin", store_root);
	w->path = xasprintf("%s%s%s", w->bin, path && *path ? ":" : "", path ? path : "");
	if (!pgo_cc) {
		error("cannot find pgo-cc, the compiler wrapper, beside pgo-run or in ../lib/linkopt");
		goto out;
	}
	if (files_make_dir(w->bin, &why) < 0) {
		error("%s", why);
		free(why);
		goto out;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *real = find_program(names[i], w->bin), *script = xasprintf("%s/%s", w->bin, names[i]);
		bool written = !real || write_script(script, pgo_cc, real);

		found += real != NULL;
		free(real);
		free(script);
		if (!written)
			goto out;
	}
	if (!found) {
		error("no compiler on PATH: none of cc, gcc, c++, g++");
		goto out;
	}
	if (getenv("CC") && *getenv("CC") && !(w->cc = wrap_variable(w->bin, "CC", pgo_cc)))
		goto out;
	if (getenv("CXX") && *getenv("CXX") && !(w->cxx = wrap_variable(w->bin, "CXX", pgo_cc)))
		goto out;
	ok = true;
out:
	free(pgo_cc);
	return ok;
}

void wrapper_close(struct wrapper *w)
{
	free(w->bin);
	free(w->path);
	free(w->cc);
	free(w->cxx);
	memset(w, 0, sizeof(*w));
}

size_t wrapper_env(const struct wrapper *w, const char *flags, const char *compile_flags, const char *log,
		   struct proc_env *env)
{
	size_t n = 0;

	env[n++] = (struct proc_env){ "PATH", w->path };
	env[n++] = (struct proc_env){ "PGO_RUN_BIN", w->bin };
	env[n++] = (struct proc_env){ "PGO_RUN_CFLAGS", flags };
	env[n++] = (struct proc_env){ "PGO_RUN_COMPILE_CFLAGS", compile_flags };
	env[n++] = (struct proc_env){ "PGO_RUN_LOG", log };
	if (w->cc)
		env[n++] = (struct proc_env){ "CC", w->cc };
	if (w->cxx)
		env[n++] = (struct proc_env){ "CXX", w->cxx };
	return n;
}
