/* merge: from the training runs' profile folders to the profile in use:
   gcov-tool's weighted merges, the notes files and the sources they name
   (for the staleness check), and the install in the store. */
#ifndef PGO_MERGE_H
#define PGO_MERGE_H

#include "compiles.h"
#include "session.h"

#include <stdbool.h>
#include <stddef.h>

/* Merges the folders raw/N the workloads wrote, with their weights, into a
   new profile folder with the notes files the instrumented build gen
   (which began at gen_started) wrote wherever its objects lie, checks it
   and describes it in *meta.  Returns the folder (a new string), which
   merge_commit makes the profile in use; NULL (with a message, nothing
   left behind) when it fails. */
char *merge_prepare(struct session *s, const char *raw, long gen_started, const struct compiles *gen,
		    struct store_meta *meta);

/* Checks every profile file under dir: gcc's (.gcda) with gcda_check,
   clang's (.profraw, .profdata) with llvm_damage.  One that is empty or
   cut short (a run killed while the runtime wrote it, a full disk) fails,
   since gcov-tool and gcc would read it as zero counts without a word.  Returns how many files there are; -1 with *why set to a new
   message naming the first damaged file (its path under dir) and why, and
   how many more there are; -2 with *why set when dir cannot be read. */
long merge_check_profiles(const struct session *s, const char *dir, char **why);

/* The weights as gcov-tool merge takes them: whole numbers (it reads
   "-w 0.5,1" as 0 and 1, and 1.5 as 1), in the same proportions: each
   weight times 10^6, divided by their greatest common divisor.  0, or -1
   with *why set to a new message when a weight has more than 6 decimals
   or the whole numbers would not fit gcov-tool's int. */
int merge_whole_weights(const double *weights, size_t n, long *whole, char **why);

/* Merges the n profile folders dirs with weights into out (an existing
   empty folder), through intermediate folders under scratch; gcov-tool's
   output goes to log.  False (with a message) when a merge fails or what
   it wrote is damaged (gcov-tool exits 0 after a failed write). */
bool merge_weighted(const struct session *s, char **dirs, const double *weights, size_t n, const char *out, const char *scratch,
		    const char *log);

/* Copies the notes folder of the profile folder from_profile into
   to_profile; dies when it cannot. */
void merge_copy_notes(const char *from_profile, const char *to_profile);

/* Sets the objects of meta (with has_data) and its sources (with the
   hashes of their content now) from the notes folder of profile; false
   (with a message) when that folder cannot be read. */
bool merge_describe(const char *profile, struct store_meta *meta);

/* Writes meta into the profile folder and makes it the profile in use,
   removing the one it replaces; false (with a message) when it cannot. */
bool merge_commit(struct session *s, const char *folder, const struct store_meta *meta);

#endif
