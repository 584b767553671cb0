/* loopdev: a cold-start device of known read-ahead for pfstat
   --device-readahead: the files copied onto an ext4 image on a loop device
   and bind-mounted over their own paths, so that the command reads them
   through that device, unchanged. */
#ifndef PFSTAT_LOOPDEV_H
#define PFSTAT_LOOPDEV_H

#include <stdbool.h>
#include <stddef.h>

struct loopdev {
	char *image;          /* the ext4 image file */
	char *mount;          /* where the image is mounted */
	char *device;         /* /dev/loopN */
	const char **bound;   /* the paths a copy is bind-mounted over */
	size_t nbound;
	bool mounted;
};

/* Sets the device up for files (root only), with read-ahead kb; 0, or -1
   with *why (what was set up is undone). */
int loopdev_setup(struct loopdev *l, const char *const *files, size_t n, unsigned long kb, char **why);

/* Undoes loopdev_setup: the files are the originals again. */
void loopdev_teardown(struct loopdev *l);

#endif
