/* llvm: the cycle's steps that differ with clang.  clang's IR
   instrumentation (-fprofile-generate) writes one raw profile (.profraw)
   per program or shared library run, whose format is that of the clang
   release; llvm-profdata of the same release checks them and merges them,
   with weights, into one indexed profile (.profdata) that names functions,
   not objects.  What gcc's notes files give (which objects, which sources)
   comes here from the instrumented build's compiler commands and objects. */
#ifndef PGO_LLVM_H
#define PGO_LLVM_H

#include "compiles.h"
#include "session.h"

#include <stdbool.h>
#include <stddef.h>

/* The profile file in a profile folder of a clang configuration. */
#define CLANG_PROFDATA "default.profdata"

/* The raw profile name a workload's runs get (LLVM_PROFILE_FILE) under
   the folder dir: %m, the program's signature, so that the runs of one
   program merge into one file (the runtime locks it) and those of two
   programs or libraries stay apart; a new string. */
char *llvm_raw_pattern(const char *dir);

/* The raw (.profraw) and indexed (.profdata) profiles under dir, as
   files_list gives them (0, or -1 with *why set). */
int llvm_list_profiles(const char *dir, char ***files, size_t *n, char **why);

/* NULL when llvm-profdata show reads the profile at path; else why not
   (its first error line: empty, cut short, of another release), a new
   string. */
char *llvm_damage(const struct session *s, const char *path);

/* The lines of the log in which clang's profile runtime says it could not
   write a profile under dir ("LLVM Profile Error: Failed to write file
   "DIR/..."); *lines gets them (new strings), the count is returned. */
size_t llvm_runtime_errors(const char *log, const char *dir, char ***lines);

/* Merges the raw and indexed profiles under the n folders dirs (the
   profile in use may be one of them), each weighed by the
   whole number whole[i], into out/CLANG_PROFDATA (one llvm-profdata merge,
   which fails on any file it cannot read); its output goes to log.  False
   (with a message) when it fails or writes nothing readable. */
bool llvm_merge(const struct session *s, char **dirs, const long *whole, size_t n, const char *out,
		const char *log);

/* Sets the objects of meta (relative to the instrumented build's folder,
   has_data when a function defined there ran in the training) from the
   instrumented build gen, and its sources (the files its compiler commands
   compiled, with the hashes of their content now).  False (with a
   message) when no object of gen holds clang's counters (the flags did
   not arrive) or the profile cannot be read. */
bool llvm_describe(const struct session *s, const char *profile, const struct compiles *gen,
		   struct store_meta *meta);

/* The functions of the profile with the largest counts, most first, as
   llvm-profdata show --topn lists them: *names and *counts (new arrays of
   new strings) get at most top of them; their number is returned, -1 with
   *why set when the profile cannot be read. */
long llvm_top_functions(const struct session *s, const char *profile, size_t top, char ***names,
			unsigned long long **counts, char **why);

#endif
