#define _GNU_SOURCE
#include "output.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The files and folders to remove at exit or on a signal.  The signal
   handler reads this table: a slot is filled (folder flag first, then the
   path) before it counts, and emptied by clearing the path. */
#define OUTPUT_SLOTS 64
static char *volatile slot_path[OUTPUT_SLOTS];
static volatile sig_atomic_t slot_folder[OUTPUT_SLOTS];
/* Only the process that registered them removes them: a child between
   fork and exec shares the handler, not the files. */
static pid_t slot_owner;

/* The inputs output_input declared. */
static struct input {
	dev_t device;
	ino_t inode;
	char *spelling;
} *inputs;
static size_t input_count, input_capacity;

/* stdout_to_temporary's file and the file it replaces; NULL when stdout
   goes to a device or FIFO in place. */
static char *stdout_temporary, *stdout_target;

/* Removes every entry of the folder open at fd, folders inside it down to
   a few levels; only system calls, for the signal handler.  The listing
   is read again until a pass finds nothing, since removing entries while
   reading may skip some. */
static void remove_entries(int fd, int depth)
{
	char buf[4096] __attribute__((aligned(8)));
	int pass;

	for (pass = 0; pass < 16; pass++) {
		bool found = false;
		long n;

		if (lseek(fd, 0, SEEK_SET) < 0)
			return;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			long at = 0;

			while (at < n) {
				struct dirent64 *d = (struct dirent64 *)(buf + at);
				const char *name = d->d_name;

				at += d->d_reclen;
				if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
					continue;
				found = true;
				if (unlinkat(fd, name, 0) == 0 || (errno != EISDIR && errno != EPERM))
					continue;
				if (depth < 4) {
					int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

					if (sub >= 0) {
						remove_entries(sub, depth + 1);
						close(sub);
					}
				}
				unlinkat(fd, name, AT_REMOVEDIR);
			}
		}
		if (!found)
			return;
	}
}

static void remove_tree(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		remove_entries(fd, 0);
		close(fd);
	}
	rmdir(path);
}

/* Removes what is registered, the latest first; async-signal-safe. */
static void remove_registered(void)
{
	int i;

	if (getpid() != slot_owner)
		return;
	for (i = OUTPUT_SLOTS - 1; i >= 0; i--) {
		char *p = slot_path[i];

		if (!p)
			continue;
		if (slot_folder[i])
			remove_tree(p);
		else
			unlink(p);
	}
}

static void (*volatile signal_hook)(void);

void output_on_signal(void (*hook)(void))
{
	signal_hook = hook;
}

static void on_signal(int sig)
{
	int saved = errno;

	if (signal_hook && getpid() == slot_owner)
		signal_hook();
	remove_registered();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

/* The handlers for SIGINT, SIGTERM and SIGHUP, where nothing else handles
   them (an ignored signal stays ignored, a program's own handler stays),
   and the removal at exit: once. */
static void install_cleanup(void)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
	static bool installed;
	struct sigaction sa, old;
	size_t i;

	if (installed)
		return;
	installed = true;
	slot_owner = getpid();
	atexit(remove_registered);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(signals[i], &sa, NULL);
}

static void register_path(const char *path, bool folder)
{
	int i;

	install_cleanup();
	for (i = 0; i < OUTPUT_SLOTS; i++) {
		if (!slot_path[i]) {
			slot_folder[i] = folder;
			slot_path[i] = xstrdup(path);
			return;
		}
	}
	warn("%s: too many temporary files at once: this one is not removed on a signal", path);
}

static void unregister_path(const char *path)
{
	int i;

	for (i = 0; i < OUTPUT_SLOTS; i++) {
		char *p = slot_path[i];

		if (p && !strcmp(p, path)) {
			slot_path[i] = NULL;
			free(p);
			return;
		}
	}
}

void output_input(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return;
	grow_array(&inputs, &input_capacity, input_count + 1, sizeof(*inputs));
	inputs[input_count++] = (struct input){ st.st_dev, st.st_ino, xstrdup(path) };
}

const char *output_same_as_input(const char *path)
{
	struct stat st;
	size_t i;

	if (stat(path, &st) < 0)
		return NULL;
	for (i = 0; i < input_count; i++)
		if (inputs[i].device == st.st_dev && inputs[i].inode == st.st_ino)
			return inputs[i].spelling;
	return NULL;
}

void output_refuse_input(const char *path)
{
	const char *input = output_same_as_input(path);

	if (input)
		fatal("%s: is the input %s (the same file): name another output; nothing is written", path, input);
}

/* The mode rule 4 gives the file that replaces path (old: what lstat found
   there, exists: whether it found anything): a regular file's own, else
   the umask's. */
static mode_t mode_for(const struct stat *old, bool exists, bool executable)
{
	if (exists && S_ISREG(old->st_mode))
		return old->st_mode & 07777;
	return (executable ? 0777 : 0666) & ~file_creation_mask();
}

/* Gives the new file at fd the owner, group (when they differ and can be
   kept) and mode of rule 4; -1 with errno set. */
static int take_mode(int fd, const struct stat *old, bool exists, bool executable)
{
	mode_t mode = mode_for(old, exists, executable);
	struct stat now;

	if (exists && S_ISREG(old->st_mode) && fstat(fd, &now) == 0 &&
	    (now.st_uid != old->st_uid || now.st_gid != old->st_gid) && fchown(fd, old->st_uid, old->st_gid) < 0)
		mode &= 0777;
	return fchmod(fd, mode);
}

/* What is at path: 1 a device, FIFO or socket (written in place), 0 a
   regular file, a symbolic link or nothing (replaced through a temporary;
   *old and *exists say what lstat found), -1 with errno set (EISDIR for a
   folder). */
static int target_kind(const char *path, struct stat *old, bool *exists)
{
	struct stat st;

	*exists = lstat(path, old) == 0;
	if (!*exists && errno != ENOENT)
		return -1;
	if (!*exists || S_ISREG(old->st_mode))
		return 0;
	if (S_ISDIR(old->st_mode)) {
		errno = EISDIR;
		return -1;
	}
	if (!S_ISLNK(old->st_mode))
		return 1;
	/* a link: replaced, unless it leads to a folder or a device */
	if (stat(path, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	return S_ISREG(st.st_mode) ? 0 : 1;
}

/* Opens what output for path is written to: a new temporary file beside
   path (*temporary its name) with the mode of rule 4, or a device or FIFO
   in place (*temporary NULL).  Returns the descriptor, or -1 with errno
   set. */
static int output_open(const char *path, bool executable, char **temporary)
{
	struct stat old;
	bool exists;
	int fd, kind, saved;

	*temporary = NULL;
	output_refuse_input(path);
	kind = target_kind(path, &old, &exists);
	if (kind < 0)
		return -1;
	if (kind == 1)
		return open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	*temporary = xasprintf("%s.tmpXXXXXX", path);
	install_cleanup();
	fd = mkostemp(*temporary, O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		free(*temporary);
		*temporary = NULL;
		errno = saved;
		return -1;
	}
	register_path(*temporary, false);
	if (take_mode(fd, &old, exists, executable) == 0)
		return fd;
	saved = errno;
	close(fd);
	unlink(*temporary);
	unregister_path(*temporary);
	free(*temporary);
	*temporary = NULL;
	errno = saved;
	return -1;
}

static int write_atomic(const char *path, const void *data, size_t size, bool executable)
{
	char *tmp;
	const char *p = data;
	int fd, saved;

	fd = output_open(path, executable, &tmp);
	if (fd < 0)
		return -1;
	while (size > 0) {
		ssize_t n = write(fd, p, size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += n;
		size -= (size_t)n;
	}
	if ((tmp && fsync(fd) < 0) || close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (tmp && rename(tmp, path) < 0)
		goto fail;
	if (tmp)
		unregister_path(tmp);
	free(tmp);
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		unregister_path(tmp);
	}
	free(tmp);
	errno = saved;
	return -1;
}

int write_file_atomic(const char *path, const void *data, size_t size)
{
	return write_atomic(path, data, size, false);
}

int write_executable_atomic(const char *path, const void *data, size_t size)
{
	return write_atomic(path, data, size, true);
}

bool stdout_to_temporary(const char *path)
{
	int fd;

	free(stdout_temporary);
	free(stdout_target);
	stdout_temporary = stdout_target = NULL;
	fd = output_open(path, false, &stdout_temporary);
	if (fd < 0)
		return false;
	stdout_target = xstrdup(path);
	fflush(stdout);
	if (dup2(fd, STDOUT_FILENO) < 0) {
		int saved = errno;

		close(fd);
		stdout_discard();
		errno = saved;
		return false;
	}
	close(fd);
	return true;
}

/* Forgets the temporary file once it is renamed or removed. */
static void stdout_forget(void)
{
	if (stdout_temporary)
		unregister_path(stdout_temporary);
	free(stdout_temporary);
	free(stdout_target);
	stdout_temporary = stdout_target = NULL;
}

void stdout_discard(void)
{
	fflush(stdout);
	if (stdout_temporary)
		unlink(stdout_temporary);
	stdout_forget();
}

int stdout_commit(void)
{
	int saved;

	if (fflush(stdout) == 0 && !ferror(stdout) &&
	    (!stdout_temporary ||
	     (fsync(STDOUT_FILENO) == 0 && rename(stdout_temporary, stdout_target) == 0))) {
		stdout_forget();
		return 0;
	}
	saved = errno;
	if (stdout_temporary)
		unlink(stdout_temporary);
	stdout_forget();
	errno = saved;
	return -1;
}

void stdout_close_or_die(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int saved = errno ? errno : EIO;

		stdout_discard();
		fatal("standard output: write failed: %s", strerror(saved));
	}
}

char *output_work_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	char *absolute = realpath(dir, NULL), *folder;

	free(dir);
	if (!absolute)
		return NULL;
	folder = xasprintf("%s/%s.tmpXXXXXX", strcmp(absolute, "/") ? absolute : "", slash ? slash + 1 : path);
	free(absolute);
	install_cleanup();
	if (!mkdtemp(folder)) {
		int saved = errno;

		free(folder);
		errno = saved;
		return NULL;
	}
	register_path(folder, true);
	return folder;
}

void output_remove_folder(const char *folder)
{
	remove_tree(folder);
	unregister_path(folder);
}

int output_place(const char *file, const char *path, bool executable)
{
	struct stat old;
	bool exists;
	int fd, kind, saved;

	output_refuse_input(path);
	kind = target_kind(path, &old, &exists);
	if (kind < 0)
		return -1;
	if (kind == 1) {
		errno = ENODEV;
		return -1;
	}
	fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (take_mode(fd, &old, exists, executable) < 0 || fsync(fd) < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	close(fd);
	return rename(file, path);
}
