/* files: the folder and file operations pgo-run's store and stages share.
   Each returns 0, or -1 with *why (when why is not NULL) set to a newly
   allocated message "path: call failed: reason". */
#ifndef PGO_FILES_H
#define PGO_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Creates the folder path and its parents, following symbolic links on
   the way: for the store's own path, which the user names (and may point
   elsewhere with a link); an existing folder is fine. */
int files_make_path(const char *path, char **why);

/* Creates the folder path and its parents inside the store (an absolute
   path without links up to the store); an existing folder is fine, but a
   symbolic link or a file where a folder goes is refused: pgo-run writes
   nothing through a link it did not make. */
int files_make_dir(const char *path, char **why);

/* Creates a new folder from template (its XXXXXX replaced in place, as
   mkdtemp does) with the mode the umask gives a new folder: the store's
   profiles are no more private than the .gcda files libgcov writes. */
int files_make_unique_dir(char *template, char **why);

/* Sets *list to the relative paths of the regular files under dir whose
   names end in suffix, sorted, and *count to their number; files older
   than since (seconds since the epoch) and folders whose names start with
   '.' (the store lives in the project folder) are left out.  A dir that
   does not exist holds no files; a folder below dir that cannot be read
   is skipped. */
int files_list(const char *dir, const char *suffix, long since, char ***list, size_t *count, char **why);

/* Frees a list from files_list. */
void files_free_list(char **list, size_t count);

/* Writes size bytes of data as the file path: into a new temporary file
   beside it (O_EXCL), renamed onto path, so that a reader never sees a
   partial file and a symbolic link at path is replaced, never followed
   (nor a file with other hard links written through); the mode is what
   the umask leaves of 0666, or of 0777 when executable. */
int files_write(const char *path, const void *data, size_t size, bool executable, char **why);

/* Copies the file from (a link there is followed: it is read) to the file
   to as files_write writes one. */
int files_copy(const char *from, const char *to, bool executable, char **why);

/* Creates the empty file path, with the mode the umask leaves of 0666,
   after removing what was there (a symbolic link is removed, not
   followed): for a log that commands then append to. */
int files_create_empty(const char *path, char **why);

/* Removes a file or a whole folder tree; a path that does not exist is
   fine. */
int files_remove(const char *path, char **why);

/* Sets *hash to the FNV-1a hash of the file's content. */
int files_hash(const char *path, uint64_t *hash, char **why);

#endif
