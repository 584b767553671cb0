/* record: the state folder linkopt-cc and linkopt-startup share (the
   --dir of both).  For each output NAME of the build:
     NAME.link    the link the build last ran: the output's absolute path,
                  the folder it ran in, the compiler and its arguments
                  (response files copied in as NAME.rsp.N);
     NAME.map, NAME.trace, NAME.LINKER.order
                  what linkopt-startup made from it;
     NAME.apply   the order later links of that output get: the output's
                  absolute path and the arguments to add;
     NAME.inputs  the files the link read when its order was made: for
                  each, its path as the link names it, its size and its
                  modification time (seconds.nanoseconds);
     NAME.rewrite the rewrite (linkopt-bolt's, or the cut) of the ordered link that later
                  links of the output get when they link exactly that file
                  again: the ordered link's path and the rewritten file's.
   A record file is a tag line ("linkopt link 1", "linkopt apply 1") ended
   by a newline, then strings, each ended by a NUL byte; it is written
   whole or not at all (temporary file and rename). */
#ifndef LINKOPT_RECORD_H
#define LINKOPT_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#define RECORD_LINK_TAG "linkopt link 1"
#define RECORD_APPLY_TAG "linkopt apply 1"
#define RECORD_REWRITE_TAG "linkopt rewrite 1"
#define RECORD_INPUTS_TAG "linkopt inputs 1"

/* The strings of a record file, in order, NULL-terminated. */
struct record {
	char **strings;
	int count;
	char *data;   /* the file's bytes the strings point into */
};

/* "DIR/NAME.SUFFIX" (SUFFIX without its dot); a new string. */
char *record_path(const char *dir, const char *name, const char *suffix);

/* path made absolute against the folder dir (when relative) and tidied
   lexically ("./" and doubled slashes removed); a new string. */
char *record_absolute(const char *dir, const char *path);

/* mkdir -p of dir; 0, or -1 with *why set to a new message. */
int record_make_dir(const char *dir, char **why);

/* Writes tag and the count strings to path whole; 0, or -1 with *why set
   to a new message naming the failing call. */
int record_write(const char *path, const char *tag, char *const *strings, int count, char **why);

/* Reads the record file path, which must open with tag; 0, or -1 with
   *why set (errno ENOENT kept when the file does not exist, so that the
   caller can tell "none yet" from a bad file). */
int record_read(const char *path, const char *tag, struct record *rec, char **why);

/* Frees what record_read allocated. */
void record_free(struct record *rec);

/* All of the file at path (a new buffer with a NUL after it, *size
   bytes); NULL with errno set. */
char *record_read_whole(const char *path, size_t *size);

/* Copies the file at path to copy whole; 0, or -1 with *why set. */
int record_copy_file(const char *path, const char *copy, char **why);

/* Whether the files a and b hold the same bytes (false when either cannot
   be read). */
bool record_same_bytes(const char *a, const char *b);

#endif
