#include "session.h"
#include "files.h"
#include "proc.h"
#include "steps.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char *absolute(const char *path)
{
	char resolved[4096];

	if (!realpath(path, resolved))
		fatal("%s: cannot resolve folder: %s", path, strerror(errno));
	return xstrdup(resolved);
}

/* The first line of `cc --version`, a new string. */
static char *compiler_version(const char *cc)
{
	char *argv[] = { (char *)cc, "--version", NULL };
	char *out = proc_capture(argv, NULL), *nl;

	if (!out)
		return xasprintf("%s (version unknown)", argv[0]);
	nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	return out;
}

/* A line "NAME: VALUE" of the description for a variable that changes the
   build when set (CXX, CXXFLAGS, CPPFLAGS: make's rules and configure
   scripts pass them); "" when it is not, so that the configurations made
   without it keep their keys.  A new string. */
static char *variable_line(const char *name, bool compiler)
{
	const char *value = getenv(name);
	char *version, *line;

	if (!value || !*value)
		return xstrdup("");
	if (!compiler)
		return xasprintf("%s: %s\n", name, value);
	version = compiler_version(value);
	line = xasprintf("%s: %s (%s)\n", name, value, version);
	free(version);
	return line;
}

/* The family of the compiler whose --version first line is version. */
static enum pgo_family family_of(const char *version)
{
	return strstr(version, "clang") ? FAMILY_CLANG : FAMILY_GCC;
}

/* Sets s->family from CC (default cc) and, for clang, s->profdata: the
   llvm-profdata CC finds beside itself (clang-22 -print-prog-name), whose
   raw profile format is CC's; false (with a message) when CXX is of the
   other family or clang has no llvm-profdata. */
static bool find_family(struct session *s)
{
	const char *cc = getenv("CC"), *cxx = getenv("CXX");
	char *version = compiler_version(cc && *cc ? cc : "cc"), *cxx_version;
	char *argv[] = { cc && *cc ? (char *)cc : "cc", "-print-prog-name=llvm-profdata", NULL }, *out, *tool;
	bool ok = true;

	s->family = family_of(version);
	if (cxx && *cxx) {
		cxx_version = compiler_version(cxx);
		if (family_of(cxx_version) != s->family) {
			error("CC (%s) and CXX (%s) are of two compiler families: a profile of one cannot be used "
			      "by the other; set both to gcc/g++ or both to clang/clang++", version, cxx_version);
			ok = false;
		}
		free(cxx_version);
	}
	free(version);
	if (!ok || s->family != FAMILY_CLANG)
		return ok;
	out = proc_capture(argv, NULL);
	if (out)
		out[strcspn(out, "\n")] = '\0';
	tool = out && *out ? proc_which(out) : NULL;
	if (!tool) {
		error("%s: no llvm-profdata beside this clang (%s): install the llvm package of its release "
		      "(Debian: llvm-N for clang-N), which merges clang's raw profiles", argv[0],
		      out && *out ? out : "clang -print-prog-name=llvm-profdata failed");
		ok = false;
	}
	s->profdata = tool;
	free(out);
	return ok;
}

static char *describe_configuration(const struct pgo_options *o)
{
	const char *cc = getenv("CC");
	char *version = compiler_version(cc && *cc ? cc : "cc"), *cxx = variable_line("CXX", true);
	char *cxxflags = variable_line("CXXFLAGS", false), *cppflags = variable_line("CPPFLAGS", false);
	char *d = xasprintf("compiler: %s\nCFLAGS: %s\nLDFLAGS: %s\n%s%s%sbuild: %s\n", version,
			    getenv("CFLAGS") ? getenv("CFLAGS") : "", getenv("LDFLAGS") ? getenv("LDFLAGS") : "",
			    cxx, cxxflags, cppflags, o->build ? o->build : "make");

	free(version);
	free(cxx);
	free(cxxflags);
	free(cppflags);
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

/* Opens the lock file path, created when missing with the mode the umask
   gives, and takes it (flock, not waiting): 0 with *fd set, 1 when another
   process holds it, -1 (with a message) when it cannot be opened or is not
   a file of its own: a symbolic link is not followed (what it points at is
   no lock of ours), a file with other hard links is not written. */
static int lock_at(const char *path, int *fd)
{
	struct stat st;
	bool busy;

	*fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (*fd < 0) {
		if (errno == ELOOP)
			error("%s: a symbolic link where pgo-run keeps its lock: pgo-run writes nothing through a "
			      "link it did not make; remove it", path);
		else
			error("%s: open failed: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		error("%s: not pgo-run's lock (a file with %lu hard links, or no plain file): remove it", path,
		      (unsigned long)st.st_nlink);
		close(*fd);
		*fd = -1;
		return -1;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	busy = errno == EWOULDBLOCK;
	if (!busy)
		error("%s: flock failed: %s", path, strerror(errno));
	close(*fd);
	*fd = -1;
	return busy ? 1 : -1;
}

/* Two cycles on one configuration would swap profiles under each other;
   the lock goes when the process ends. */
static bool lock_configuration(const struct session *s)
{
	char *lock = xasprintf("%s/lock", s->store.config);
	int fd, status = lock_at(lock, &fd);

	if (status == 1)
		error("%s: another pgo-run is using this configuration of the store", lock);
	free(lock);
	return status == 0;
}

bool session_lock_project(const struct session *s)
{
	char *lock = xasprintf("%s/lock", s->store.root), holder[64] = "";
	int fd, status = lock_at(lock, &fd);
	ssize_t n;

	if (status == 0) {
		/* for the message of a run it refuses */
		if (ftruncate(fd, 0) < 0 || pwrite(fd, s->store.key, strlen(s->store.key), 0) < 0)
			warn("%s: cannot record the configuration that holds it: %s", lock, strerror(errno));
	} else if (status == 1 && (fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		n = pread(fd, holder, sizeof(holder) - 1, 0);
		holder[n > 0 ? n : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		close(fd);
	}
	if (status == 1)
		error("%s: another pgo-run is building this project%s%s%s: the builds of two configurations "
		      "would replace each other's objects in the tree; wait for it to end", lock,
		      *holder ? " (configuration " : "", holder, *holder ? ")" : "");
	free(lock);
	return status == 0;
}

/* Takes the lock of the configuration folder config for clean; false (with
   a message) when a pgo-run holds it. */
static bool lock_to_remove(const char *config)
{
	char *lock = xasprintf("%s/lock", config);
	struct stat st;
	int fd, status = 0;

	/* a folder that is not there holds no lock: there is nothing to remove */
	if (lstat(config, &st) == 0)
		status = lock_at(lock, &fd);
	if (status == 1)
		error("%s: a pgo-run is using this configuration of the store: not removing it while it runs",
		      lock);
	free(lock);
	return status == 0;
}

bool session_lock_to_remove(const struct session *s, bool all)
{
	char *lock;
	DIR *dir;
	struct dirent *e;
	int fd, status;
	bool ok = true;

	if (!all)
		return lock_to_remove(s->store.config);
	lock = xasprintf("%s/lock", s->store.root);
	status = lock_at(lock, &fd);
	if (status == 1)
		error("%s: a pgo-run is building this project: not removing the store while it runs", lock);
	free(lock);
	if (status != 0)
		return false;
	dir = opendir(s->store.root);
	if (!dir) {
		error("%s: opendir failed: %s", s->store.root, strerror(errno));
		return false;
	}
	while (ok && (e = readdir(dir))) {
		char *config;

		if (!store_is_key(e->d_name))
			continue;
		config = xasprintf("%s/%s", s->store.root, e->d_name);
		ok = lock_to_remove(config);
		free(config);
	}
	closedir(dir);
	return ok;
}

bool session_busy(const struct session *s)
{
	char *lock = xasprintf("%s/lock", s->store.config);
	int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool busy = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;

	if (fd >= 0)
		close(fd);
	free(lock);
	return busy;
}

/* The store whose configuration lock we hold, while a session has it open:
   what a fatal() (it calls exit) leaves there is removed on the way out. */
static const struct store *locked_store;

static void remove_leftovers_at_exit(void)
{
	const struct store *store = locked_store;
	char **removed, *why = NULL;
	size_t n, i;

	/* once: a fatal() in here must not come back */
	locked_store = NULL;
	if (!store)
		return;
	store_remove_leftovers(store, &removed, &n, &why);
	for (i = 0; i < n; i++)
		free(removed[i]);
	free(removed);
	free(why);
}

/* With the lock held, what a run killed before it could clean up left in
   the configuration's folder cannot be in use: it goes, and we say so. */
static void remove_leftovers(const struct session *s)
{
	static bool registered;
	char **removed, *why = NULL, *list = xstrdup("");
	size_t n, i;

	if (store_remove_leftovers(&s->store, &removed, &n, &why) < 0) {
		warn("cannot remove what an earlier pgo-run left in the store: %s", why);
		free(why);
	}
	for (i = 0; i < n; i++) {
		char *longer = xasprintf("%s%s%s", list, i ? ", " : "", removed[i]);

		free(list);
		list = longer;
		free(removed[i]);
	}
	if (n)
		steps_step("store", "removed what a pgo-run killed before it could clean up left in %s: %s",
			    s->store.config, list);
	free(list);
	free(removed);
	locked_store = &s->store;
	if (!registered && atexit(remove_leftovers_at_exit) == 0)
		registered = true;
}

bool session_open(struct session *s, const struct pgo_options *o, bool create)
{
	char *description = describe_configuration(o), *why = NULL;
	int status;

	memset(s, 0, sizeof(*s));
	s->options = o;
	s->start = proc_now();
	status = store_open(&s->store, o->store_path, description, create, &why);
	free(description);
	if (status < 0) {
		error("%s", why);
		free(why);
		return false;
	}
	s->gen_data = xasprintf("%s/gen", s->store.config);
	s->logs = xasprintf("%s/logs", s->store.config);
	if (!find_family(s))
		return false;
	if (!create)
		return true;
	if (files_make_dir(s->gen_data, &why) < 0 || files_make_dir(s->logs, &why) < 0) {
		error("%s", why);
		free(why);
		return false;
	}
	if (!lock_configuration(s))
		return false;
	remove_leftovers(s);
	s->gen_dir = absolute(o->gen_dir);
	s->use_dir = absolute(o->use_dir);
	return flag_safe(s->store.config, "the store") && flag_safe(s->gen_dir, "--gen-dir") &&
	       flag_safe(s->use_dir, "--use-dir") && wrapper_open(&s->wrapper, s->store.root);
}

void session_close(struct session *s)
{
	if (locked_store == &s->store) {
		remove_leftovers_at_exit();
		locked_store = NULL;
	}
	free(s->gen_dir);
	free(s->use_dir);
	free(s->profdata);
	free(s->gen_data);
	free(s->logs);
	wrapper_close(&s->wrapper);
	store_close(&s->store);
}

char *session_log(const struct session *s, const char *name)
{
	char *path = xasprintf("%s/%s.log", s->logs, name), *why;

	/* the commands append to it: a file of ours, with the umask's mode */
	if (files_create_empty(path, &why) < 0)
		fatal("%s", why);
	return path;
}
