#define _GNU_SOURCE
#include "loopdev.h"
#include "proc.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/loop.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void pause_ms(long ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
}

/* Runs argv (stdin /dev/null, output captured); NULL, or why it failed. */
static char *run(char *const argv[])
{
	struct proc_request rq = { .argv = argv, .stdin_null = true, .out = PROC_CAPTURE, .err = PROC_CAPTURE };
	struct proc_result r;
	char *why = NULL;

	proc_exec(&rq, &r);
	if (r.status != 0) {
		char *line = proc_command_line(argv), *text = proc_failure(r.status, r.err);

		why = xasprintf("%s: %s", line, text);
		free(line);
		free(text);
	}
	proc_result_free(&r);
	return why;
}

static ino_t namespace_of(const char *pid)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", pid);
	return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* A mount namespace of our own whose mounts never propagate out. */
static int own_namespace(struct loopdev *l, char **why)
{
	if (unshare(CLONE_NEWNS) < 0) {
		*why = xasprintf("--read-ahead-kb: unshare(CLONE_NEWNS) failed: %s", strerror(errno));
		return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
		*why = xasprintf("--read-ahead-kb: cannot make the mount namespace private: %s", strerror(errno));
		return -1;
	}
	l->namespace = namespace_of("self");
	return 0;
}

/* Attaches the image fd to a free loop device that detaches itself when
   its last user closes it; the device's descriptor, or -1 with *why. */
static int attach(struct loopdev *l, int image, char **why)
{
	int control = open("/dev/loop-control", O_RDWR | O_CLOEXEC), attempt;
	struct stat st;

	if (control < 0) {
		*why = xasprintf("/dev/loop-control: cannot open: %s", strerror(errno));
		return -1;
	}
	fstat(image, &st);
	l->image = st.st_ino;
	/* another process may take the free device first: take the next */
	for (attempt = 0; attempt < 20; attempt++) {
		struct loop_config config = { .fd = image, .info = { .lo_flags = LO_FLAGS_AUTOCLEAR } };
		char device[32];
		int index = ioctl(control, LOOP_CTL_GET_FREE), fd;

		if (index < 0) {
			*why = xasprintf("/dev/loop-control: no free loop device: %s", strerror(errno));
			break;
		}
		snprintf(device, sizeof(device), "/dev/loop%d", index);
		fd = open(device, O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			pause_ms(50);
			fd = open(device, O_RDWR | O_CLOEXEC);
		}
		if (fd < 0) {
			*why = xasprintf("%s: cannot open: %s", device, strerror(errno));
			break;
		}
		if (ioctl(fd, LOOP_CONFIGURE, &config) == 0) {
			close(control);
			l->index = index;
			return fd;
		}
		close(fd);
		if (errno != EBUSY) {
			*why = xasprintf("%s: LOOP_CONFIGURE failed: %s", device, strerror(errno));
			break;
		}
	}
	if (!*why)
		*why = xstrdup("/dev/loop-control: every free loop device was taken before pfstat could use it");
	close(control);
	return -1;
}

static int set_read_ahead(const struct loopdev *l, unsigned long kb, char **why)
{
	char *path = xasprintf("/sys/block/loop%d/queue/read_ahead_kb", l->index);
	FILE *f = fopen(path, "w");
	int status = 0;

	if (!f || fprintf(f, "%lu\n", kb) < 0 || fclose(f) != 0) {
		*why = xasprintf("%s: cannot set the read-ahead: %s", path, strerror(errno));
		status = -1;
	}
	free(path);
	return status;
}

/* The file system on the device, mounted nowhere yet; -1 with *why. */
static int mount_detached(const struct loopdev *l, char **why)
{
	char device[32];
	int fs, mnt;

	snprintf(device, sizeof(device), "/dev/loop%d", l->index);
	fs = fsopen("ext4", FSOPEN_CLOEXEC);
	if (fs < 0) {
		*why = xasprintf("%s: fsopen(ext4) failed: %s", device, strerror(errno));
		return -1;
	}
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", device, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		*why = xasprintf("%s: cannot mount its ext4 file system: %s", device, strerror(errno));
		close(fs);
		return -1;
	}
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0)
		*why = xasprintf("%s: fsmount failed: %s", device, strerror(errno));
	close(fs);
	return mnt;
}

/* Copies from onto name in the folder dir, with its mode, owner and
   times; -1 with *why. */
static int copy_file(const char *from, int dir, const char *name, char **why)
{
	static char chunk[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1;
	struct stat st;
	off_t left;

	if (in < 0 || fstat(in, &st) < 0) {
		*why = xasprintf("%s: cannot open: %s", from, strerror(errno));
		goto failed;
	}
	out = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		*why = xasprintf("%s: cannot make its copy on the loop device: %s", from, strerror(errno));
		goto failed;
	}
	for (left = st.st_size; left > 0;) {
		ssize_t got = read(in, chunk, sizeof(chunk));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			*why = xasprintf("%s: read failed: %s", from, got < 0 ? strerror(errno) : "the file shrank");
			goto failed;
		}
		for (ssize_t done = 0; done < got;) {
			ssize_t put = write(out, chunk + done, got - done);

			if (put < 0 && errno == EINTR)
				continue;
			if (put <= 0) {
				*why = xasprintf("%s: cannot write its copy on the loop device: %s", from,
						 put < 0 ? strerror(errno) : "no space");
				goto failed;
			}
			done += put;
		}
		left -= got;
	}
	if (fchown(out, st.st_uid, st.st_gid) < 0 || fchmod(out, st.st_mode & 07777) < 0 ||
	    futimens(out, (struct timespec[2]){ st.st_atim, st.st_mtim }) < 0 || fsync(out) < 0) {
		*why = xasprintf("%s: cannot give its copy the file's owner, mode and times: %s", from, strerror(errno));
		goto failed;
	}
	close(in);
	close(out);
	return 0;
failed:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return -1;
}

/* Mounts the copy name over path; -1 with *why. */
static int bind_over(const struct loopdev *l, const char *name, const char *path, char **why)
{
	int tree = open_tree(l->mount, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

	if (tree < 0) {
		*why = xasprintf("%s: open_tree of its copy failed: %s", path, strerror(errno));
		return -1;
	}
	if (move_mount(tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_SYMLINKS) < 0) {
		*why = xasprintf("%s: cannot mount its copy over it: %s", path, strerror(errno));
		close(tree);
		return -1;
	}
	close(tree);
	return 0;
}

int loopdev_setup(struct loopdev *l, const char *const *files, size_t n, unsigned long kb, char **why)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	unsigned long long total = 64ull << 20;
	char device[32];
	size_t i;
	int image = -1, fd = -1;

	memset(l, 0, sizeof(*l));
	l->index = l->mount = -1;
	*why = NULL;
	if (geteuid() != 0) {
		*why = xstrdup("--read-ahead-kb needs root: it sets up a loop device and mounts it");
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		if (stat(files[i], &st) < 0 || !S_ISREG(st.st_mode)) {
			*why = xasprintf("%s: not a regular file", files[i]);
			return -1;
		}
		total += st.st_size + st.st_size / 8 + 4096;
	}
	if (own_namespace(l, why) < 0)
		return -1;
	image = open(tmp, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (image < 0 || ftruncate(image, (off_t)total) < 0) {
		*why = xasprintf("%s: cannot make the image: %s", tmp, strerror(errno));
		goto failed;
	}
	if ((fd = attach(l, image, why)) < 0)
		goto failed;
	close(image);
	image = -1;
	snprintf(device, sizeof(device), "/dev/loop%d", l->index);
	{
		char *mkfs[] = { "mkfs.ext4", "-q", "-F", device, NULL };

		if ((*why = run(mkfs)))
			goto failed;
	}
	if (set_read_ahead(l, kb, why) < 0 || (l->mount = mount_detached(l, why)) < 0)
		goto failed;
	/* from here the file system holds the device: it goes when that goes */
	close(fd);
	fd = -1;
	l->bound = xcalloc(n + 1, sizeof(*l->bound));
	for (i = 0; i < n; i++) {
		char *copy_of = xstrdup(files[i]), *name = xasprintf("%zu-%s", i, basename(copy_of));
		int status = copy_file(files[i], l->mount, name, why);

		free(copy_of);
		if (status < 0) {
			free(name);
			goto failed;
		}
		free(name);
	}
	{
		struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };

		/* the copies are read-only: a write to one fails rather than
		   landing in a copy that is thrown away */
		if (mount_setattr(l->mount, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0) {
			*why = xasprintf("%s: cannot make the copies read-only: %s", device, strerror(errno));
			goto failed;
		}
	}
	for (i = 0; i < n; i++) {
		char *copy_of = xstrdup(files[i]), *name = xasprintf("%zu-%s", i, basename(copy_of));
		int status = bind_over(l, name, files[i], why);

		free(copy_of);
		free(name);
		if (status < 0)
			goto failed;
		l->bound[l->nbound++] = files[i];
	}
	if (proc_interrupted()) {
		*why = xstrdup("interrupted while setting up the loop device; nothing measured");
		goto failed;
	}
	return 0;
failed:
	if (image >= 0)
		close(image);
	if (fd >= 0)
		close(fd);
	{
		char *also = NULL;

		if (loopdev_teardown(l, &also) < 0) {
			warn("%s", also);
			free(also);
		}
	}
	return -1;
}

char *loopdev_end_strays(const struct loopdev *l)
{
	char *names = NULL;
	int round;

	if (!l->namespace)
		return NULL;
	/* round 0 names them and sends SIGTERM; then SIGKILL to what is left */
	for (round = 0; round < 12; round++) {
		DIR *proc = opendir("/proc");
		struct dirent *e;
		bool any = false;

		if (!proc)
			break;
		while ((e = readdir(proc))) {
			char *end;
			long pid = strtol(e->d_name, &end, 10);

			if (*end || pid <= 0 || pid == getpid() || namespace_of(e->d_name) != l->namespace)
				continue;
			any = true;
			if (round == 0) {
				char path[64], comm[64] = "?", *more;
				FILE *f;

				snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
				if ((f = fopen(path, "r"))) {
					if (fgets(comm, sizeof(comm), f))
						comm[strcspn(comm, "\n")] = '\0';
					fclose(f);
				}
				more = xasprintf("%s%sprocess %ld (%s)", names ? names : "", names ? ", " : "", pid, comm);
				free(names);
				names = more;
				kill(pid, SIGTERM);
				kill(pid, SIGCONT);
			} else if (round >= 10) {
				kill(pid, SIGKILL);
			}
		}
		closedir(proc);
		if (!any)
			break;
		pause_ms(100);
	}
	return names;
}

/* Whether loop device index is still bound to our image. */
static bool still_ours(const struct loopdev *l)
{
	char device[32];
	struct loop_info64 info;
	int fd, status;

	snprintf(device, sizeof(device), "/dev/loop%d", l->index);
	fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	status = ioctl(fd, LOOP_GET_STATUS64, &info);
	close(fd);
	return status == 0 && info.lo_inode == l->image;
}

int loopdev_teardown(struct loopdev *l, char **why)
{
	int status = 0, waited;

	*why = NULL;
	while (l->nbound) {
		const char *path = l->bound[--l->nbound];

		if (umount2(path, 0) == 0)
			continue;
		if (errno == EBUSY) {
			free(loopdev_end_strays(l));
			if (umount2(path, 0) == 0)
				continue;
		}
		/* only our namespace ever saw it: detaching it there is safe */
		if (!*why)
			*why = xasprintf("%s: cannot unmount its copy: %s", path, strerror(errno));
		umount2(path, MNT_DETACH);
		status = -1;
	}
	if (l->mount >= 0)
		close(l->mount);
	l->mount = -1;
	if (l->index >= 0) {
		for (waited = 0; still_ours(l) && waited < 100; waited++)
			pause_ms(100);
		if (still_ours(l)) {
			if (!*why)
				*why = xasprintf("/dev/loop%d: still attached after 10 s: something in pfstat's mount "
						 "namespace still uses it", l->index);
			status = -1;
		}
	}
	free(l->bound);
	l->bound = NULL;
	l->index = -1;
	return status;
}
