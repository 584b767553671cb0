/* relation: how the main programs of two pagein traces, before and after,
   stand to each other, which a side-by-side comparison depends on: the
   same build run twice, the same program relinked (an order put in place:
   the same path, or the same file name, another build-id), or two programs
   whose figures have nothing to compare. */
#ifndef LINKOPT_RELATION_H
#define LINKOPT_RELATION_H

#include "trace.h"

#include <stdbool.h>

enum relation {
	RELATION_SAME_BUILD,        /* the same build-id */
	RELATION_SAME_PROGRAM,      /* the same path, no build-id to tell builds apart */
	RELATION_RELINKED_IN_PLACE, /* the same path, another build-id */
	RELATION_RELINKED_ELSEWHERE, /* another path of the same file name, another build-id */
	RELATION_RELINKED_RENAMED,  /* another name, taken as a relink because the user said so */
	RELATION_UNRELATED,         /* another path and another name: two programs */
};

/* How after (the main program of the after trace) stands to before;
   same_program: the user says they are one program, relinked under
   another name (a pair that would be RELATION_UNRELATED is then
   RELATION_RELINKED_RENAMED). */
enum relation relation_of(const struct trace_object *before, const struct trace_object *after, bool same_program);

/* The relation in words, with both build-ids (a new string): "the same
   program relinked in place (build-id X, then Y)". */
char *relation_describe(enum relation relation, const struct trace_object *before, const struct trace_object *after);

/* Why two main programs are not compared, with both paths and build-ids,
   and what to give instead (a new string). */
char *relation_refusal(const struct trace_object *before, const struct trace_object *after, const char *option);

#endif
