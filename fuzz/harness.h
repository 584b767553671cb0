/* harness: what the fuzz harnesses share.  Each fuzz-*.c is a libFuzzer
   target (LLVMFuzzerTestOneInput) for one reader of the toolkit; the
   readers that take a path get the input through a file in a temporary
   folder of the process (a link to a memory file), made on first use,
   rewritten for every input and removed at exit. */
#ifndef LINKOPT_FUZZ_HARNESS_H
#define LINKOPT_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* Replaces the file name in the process's temporary folder with the size
   bytes of data; returns its path (owned by the harness, stable for the
   process).  Aborts when the file cannot be written: the harness cannot
   test anything then. */
const char *harness_file(const char *name, const uint8_t *data, size_t size);

/* The process's temporary folder (made on first use, removed at exit). */
const char *harness_folder(void);

/* A malloc'd copy of the size bytes of data, one NUL byte after them: the
   readers may write to their image (libelf converts in place) and a
   sanitizer sees a read past its end. */
char *harness_copy(const uint8_t *data, size_t size);

/* Aborts with a message naming what when ok is false: an invariant of a
   reader's result that the fuzzer reports as a crash. */
void harness_check(int ok, const char *what);

#endif
