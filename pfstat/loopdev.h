/* loopdev: a cold-start device of known read-ahead for pfstat
   --read-ahead-kb: the files copied onto an ext4 image on a loop device
   and bind-mounted, read-only, over their own paths, so that the command
   reads them through that device, unchanged.

   Nothing of it can outlive pfstat or be seen outside it: the mounts are
   made in a mount namespace of pfstat's own (the command runs in it, every
   other process sees the real files, and writes to them land in them); the
   image has no name (O_TMPFILE) and the loop device detaches itself when
   the file system on it is gone (autoclear), which the kernel does when
   the last process of the namespace ends, however it ends. */
#ifndef PFSTAT_LOOPDEV_H
#define PFSTAT_LOOPDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct loopdev {
	int index;            /* N of /dev/loopN; -1: none */
	ino_t image;          /* the image's inode: tells our binding of the device from a later one */
	int mount;            /* the file system, mounted nowhere (fsmount); -1: none */
	ino_t namespace;      /* our mount namespace's inode */
	const char **bound;   /* the paths a copy is mounted over */
	size_t nbound;
};

/* Sets the device up for files (root only), with read-ahead kb, moving
   this process into a mount namespace of its own first; 0, or -1 with *why
   (what was set up is undone). */
int loopdev_setup(struct loopdev *l, const char *const *files, size_t n, unsigned long kb, char **why);

/* Ends the processes other than this one left in our mount namespace (a
   daemon the command started, which would keep the device): SIGTERM,
   SIGKILL 1 s later.  Their names ("process 12 (prog)"), a new string, or
   NULL when there were none. */
char *loopdev_end_strays(const struct loopdev *l);

/* Undoes loopdev_setup: unmounts the copies and waits until the loop
   device is detached.  0, or -1 with *why when it could not be (it then
   detaches once the last process of the namespace ends). */
int loopdev_teardown(struct loopdev *l, char **why);

#endif
