/* input: the same standard input for every run of a measured command.
   The runs inherit pfstat's own descriptor 0 (proc_exec), so input_start
   points it at what one run reads and input_end takes it back.  A regular
   file (or a block device) is rewound to where it stood for each run; a
   pipe, FIFO or socket is read to its end once, when there is more than one
   run, and each run gets all of it through a pipe of its own; a terminal
   gives every run /dev/null (a run in a process group of its own would stop
   on reading it); another device, or one run from a pipe, is left as it is. */
#ifndef PFSTAT_INPUT_H
#define PFSTAT_INPUT_H

#include <stdbool.h>
#include <sys/stat.h>

/* Looks at standard input and, when several runs will read it, takes a
   pipe's whole contents (at most 256 MiB, kept out of pfstat's own memory
   so that a run's maximum resident set does not count it).  0, or -1 with
   *why (a new string). */
int input_prepare(bool several, char **why);

/* When descriptor 0 is the file before (its device and inode, taken
   before the file's copy was mounted over path), opens path (the copy, as
   the command sees it) read-only at the offset descriptor 0 stood at and
   puts it at descriptor 0, so that the runs read the copy; 1 when it did,
   0 when descriptor 0 is another file, -1 with *why. */
int input_reopen(const struct stat *before, const char *path, char **why);
/* Before a run: descriptor 0 as the run must get it.  0, or -1 with *why. */
int input_start(char **why);

/* After a run: no pipe of the run is left open, its feeder is ended. */
void input_end(void);

/* What the runs read, for the report ("a pipe: 3893 bytes, the same to
   each run"), or NULL when there is nothing to say (one run reading its
   input as it is, or no input). */
const char *input_description(void);

#endif
