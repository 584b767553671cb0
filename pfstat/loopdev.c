#include "loopdev.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs argv; NULL, or why it failed (its stderr). */
static char *run(char *const argv[], char **out)
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
	} else if (out) {
		*out = xstrdup(r.out);
	}
	proc_result_free(&r);
	return why;
}

int loopdev_setup(struct loopdev *l, const char *const *files, size_t n, unsigned long kb, char **why)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	unsigned long long total = 64ull << 20;
	char *out = NULL, *nl, *ra;
	size_t i;
	int fd;
	FILE *f;

	memset(l, 0, sizeof(*l));
	if (geteuid() != 0) {
		*why = xstrdup("--device-readahead needs root: it sets up a loop device and mounts it");
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
	l->image = xasprintf("%s/pfstat-loop.XXXXXX", tmp);
	fd = mkstemp(l->image);
	if (fd < 0 || ftruncate(fd, (off_t)total) < 0) {
		*why = xasprintf("%s: cannot make the image: %s", l->image, strerror(errno));
		if (fd >= 0)
			close(fd);
		loopdev_teardown(l);
		return -1;
	}
	close(fd);
	{
		char *mkfs[] = { "mkfs.ext4", "-q", "-F", l->image, NULL };
		char *losetup[] = { "losetup", "--find", "--show", l->image, NULL };

		if ((*why = run(mkfs, NULL)) || (*why = run(losetup, &out))) {
			loopdev_teardown(l);
			return -1;
		}
	}
	if ((nl = strchr(out, '\n')))
		*nl = '\0';
	l->device = out;
	l->mount = xasprintf("%s/pfstat-mnt.XXXXXX", tmp);
	if (!mkdtemp(l->mount)) {
		*why = xasprintf("%s: cannot make the mount point: %s", l->mount, strerror(errno));
		free(l->mount);
		l->mount = NULL;
		loopdev_teardown(l);
		return -1;
	}
	{
		char *mount[] = { "mount", l->device, l->mount, NULL };

		if ((*why = run(mount, NULL))) {
			loopdev_teardown(l);
			return -1;
		}
	}
	l->mounted = true;
	ra = xasprintf("/sys/block/%s/queue/read_ahead_kb", strrchr(l->device, '/') + 1);
	f = fopen(ra, "w");
	if (!f || fprintf(f, "%lu\n", kb) < 0 || fclose(f) != 0) {
		*why = xasprintf("%s: cannot set the read-ahead: %s", ra, strerror(errno));
		free(ra);
		loopdev_teardown(l);
		return -1;
	}
	free(ra);
	l->bound = xcalloc(n + 1, sizeof(*l->bound));
	for (i = 0; i < n; i++) {
		char *copy_of = xstrdup(files[i]);
		char *copy = xasprintf("%s/%zu-%s", l->mount, i, basename(copy_of));
		char *cp[] = { "cp", "--preserve=mode,timestamps", (char *)files[i], copy, NULL };
		char *bind[] = { "mount", "--bind", copy, (char *)files[i], NULL };

		*why = run(cp, NULL);
		if (!*why && !(*why = run(bind, NULL)))
			l->bound[l->nbound++] = files[i];
		free(copy);
		free(copy_of);
		if (*why) {
			loopdev_teardown(l);
			return -1;
		}
	}
	return 0;
}

void loopdev_teardown(struct loopdev *l)
{
	char *why;

	while (l->nbound) {
		char *umount[] = { "umount", (char *)l->bound[--l->nbound], NULL };

		if ((why = run(umount, NULL))) {
			warn("%s", why);
			free(why);
		}
	}
	if (l->mounted) {
		char *umount[] = { "umount", l->mount, NULL };

		if ((why = run(umount, NULL))) {
			warn("%s", why);
			free(why);
		}
		l->mounted = false;
	}
	if (l->device) {
		char *detach[] = { "losetup", "-d", l->device, NULL };

		if ((why = run(detach, NULL))) {
			warn("%s", why);
			free(why);
		}
	}
	if (l->mount)
		rmdir(l->mount);
	if (l->image)
		unlink(l->image);
	free(l->image);
	free(l->mount);
	free(l->device);
	free(l->bound);
	memset(l, 0, sizeof(*l));
}
