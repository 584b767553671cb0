/* output: the toolkit's one rule for writing a file the user named.
   Every tool writes its outputs through here (deporder --out and
   --stats-json, likely-check profile --out, linkopt report -o,
   linkopt-bolt -o; pagein's valgrind tool, which cannot link this, keeps
   the same rule in pg_main.c), and tests/t-output-rule.sh applies the same
   hostile cases to each of them.

   1. Temporary files are created exclusively: mkstemp beside the target
      (TARGET.tmpXXXXXX in the target's folder) or a private folder made
      by mkdtemp; never a name somebody could foresee and plant a link at.
      The target is replaced by a rename once the new file is complete, so
      a reader never sees a part of it and a failed run leaves it as it
      was.
   2. An output is never an input.  A tool declares its inputs
      (output_input); an output that is the same file as one of them,
      compared by device and inode (./prog and prog, a hard link, a
      symbolic link to it), is refused: the tool dies with a message
      naming both, exit status 1, and writes nothing.
   3. A symbolic link at the output is replaced, not followed: the file it
      led to stays as it was.  A device or a FIFO (/dev/null, /dev/stdout,
      a pipe) is written in place: there is no file to replace.  A folder
      is refused (EISDIR).
   4. A new file gets the mode the umask gives (0666 less the umask; 0777
      less the umask for an executable); a replaced regular file keeps its
      own mode, and its owner and group when they can be kept (without its
      set-id bits when they cannot).
   5. Everything is undone on SIGINT, SIGTERM and SIGHUP: the temporary
      files and work folders still registered here are removed, then the
      process dies of the signal; exit() removes them too.  A program that
      handles these signals itself (proc_catch_interrupts) keeps its
      handlers and cleans up on its way out (exit).

   linkopt(1) states the rule for users; the tools' pages refer to it. */
#ifndef LINKOPT_OUTPUT_H
#define LINKOPT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

/* Declares path an input of this run (rule 2).  A path that names no file
   is ignored; so is a device or FIFO. */
void output_input(const char *path);

/* The spelling under which an input declared with output_input was given
   when path (followed through symbolic links) is the same file, or NULL. */
const char *output_same_as_input(const char *path);

/* Dies (status 1) with "path: is the input INPUT (the same file): name
   another output; nothing is written" when path is an input (rule 2). */
void output_refuse_input(const char *path);

/* Writes a whole file to path by the rule; returns 0, or -1 with errno set
   (EISDIR for a folder).  Dies when path is an input. */
int write_file_atomic(const char *path, const void *data, size_t size);

/* write_file_atomic for an executable file: a new one gets 0777 less the
   umask (rule 4). */
int write_executable_atomic(const char *path, const void *data, size_t size);

/* Sends stdout to a new temporary file for path, by the rule (a device or
   FIFO: to path itself); false with errno set.  Dies when path is an
   input. */
bool stdout_to_temporary(const char *path);
/* Completes stdout_to_temporary: flushes and renames the temporary onto
   the file path named; -1 with errno set (and the temporary removed) on
   failure. */
int stdout_commit(void);
/* Abandons stdout_to_temporary: removes the temporary file. */
void stdout_discard(void);

/* Makes hook the first thing the signal handler does, before it removes
   anything: for a program whose commands write into its work folder, to
   end them (async-signal-safe calls only: kill, waitpid). */
void output_on_signal(void (*hook)(void));

/* Makes a private folder (mkdtemp, mode 0700) beside path, for work whose
   result output_place later renames onto path; it is removed with what it
   holds at exit and on SIGINT, SIGTERM and SIGHUP.  Returns its absolute
   name (a new string), or NULL with errno set. */
char *output_work_folder(const char *path);

/* Removes a folder output_work_folder made, with what it holds, now. */
void output_remove_folder(const char *folder);

/* Makes file, a complete file in a folder output_work_folder made beside
   path, the output path: the mode of rule 4 (executable: 0777 less the
   umask for a new file), then a rename that replaces a symbolic link or a
   regular file at path.  0, or -1 with errno set (EISDIR for a folder;
   ENODEV when path is a device or FIFO, which cannot take a renamed
   file).  Dies when path is an input. */
int output_place(const char *file, const char *path, bool executable);

#endif
