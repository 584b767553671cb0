/* progress: one line on the terminal that says a long step is still
   running ("pagein: tracing ./prog under valgrind  | 12 s"), redrawn by a
   thread of its own while the caller waits for a command, erased when the
   step ends.  The one part of lib/ that writes: on stderr, and only when
   stderr is a terminal, TERM is not "dumb" and LINKOPT_PROGRESS is not
   "no"; otherwise every call returns at once, so that pipes, logs and a
   test's captured output never hold a byte of it.  A step that ends within
   half a second shows nothing.  Output the step's command writes to the
   same terminal meanwhile may share the line. */
#ifndef LINKOPT_PROGRESS_H
#define LINKOPT_PROGRESS_H

#include <stdbool.h>

/* True when progress_start would show a line: stderr is a terminal, TERM
   is not "dumb" and LINKOPT_PROGRESS is not "no". */
bool progress_enabled(void);

/* Starts showing the formatted label with the seconds since this call
   (redrawn four times a second, from half a second on); a step still
   shown is stopped first.  Never fails: without a thread, no line. */
void progress_start(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Replaces the label of the step shown ("run 3 of 10"), its clock kept;
   nothing when no step is shown. */
void progress_label(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Erases the line and ends its thread; nothing when no step is shown.
   Call it before printing anything about the step. */
void progress_stop(void);

#endif
