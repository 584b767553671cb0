/* gimple: the __builtin_expect calls of a translation unit as gcc's
   coverage pass sees them, read from its dump of the function bodies it
   instruments (-fdump-ipa-profile-details-blocks-lineno): where each call
   was written, and the two successors of the block that branches on its
   value, numbered as the .gcno numbers them. */
#ifndef LIKELY_CHECK_GIMPLE_H
#define LIKELY_CHECK_GIMPLE_H

#include "util.h"

#include <stdbool.h>
#include <stddef.h>

/* One __builtin_expect call of the dump. */
struct gimple_hint {
	char *file;               /* where it was written (a macro: where expanded) */
	unsigned int line, column;
	long expect;              /* the expected value, when expect_known */
	bool expect_known;
	char *reason;             /* why its branch cannot be counted, or NULL */
	unsigned int block;       /* the block that branches on the value */
	unsigned int right_block; /* its successor when the value is the expected one */
	unsigned int wrong_block; /* its successor when it is not */
};

/* One function of the dump. */
struct gimple_function {
	char *name;               /* its assembler name, as the .gcno names it */
	struct gimple_hint *hints;
	size_t hint_count, hint_capacity;
};

/* Reads gcc's dump of the functions as gimplified, before any inlining
   (-fdump-tree-gimple-lineno), at path: adds to split, as
   "file:line:column" -> a count (uintptr_t), the places where one function
   has more than one hint: gcc made one hint per operand of a && or ||
   (fold_builtin_expect), and no branch tests the value of the whole.
   Returns 0, or -1 with *why set to a newly allocated reason. */
int gimple_split_places(const char *path, struct strmap *split, char **why);

/* Frees the keys of split and split. */
void gimple_free_split(struct strmap *split);

/* Reads the coverage pass's dump at path: every function and its hint
   calls, those at a place of split given a reason.  Returns 0, or -1 with
   *why set to a newly allocated reason. */
int gimple_read(const char *path, const struct strmap *split, struct gimple_function **functions,
		size_t *count, char **why);

/* Frees count functions and the array. */
void gimple_free(struct gimple_function *functions, size_t count);

#endif
