#define _GNU_SOURCE
#include "gimple.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* A __builtin_expect call before it is matched with its block's branch. */
struct call {
	char *lhs;      /* the SSA name the value goes to, or NULL */
	char *argument; /* the hinted value */
	struct gimple_hint hint;
};

/* The two-way branch that ends a block: if (left op right). */
struct branch {
	unsigned int block;
	char *left, *op, *right;
	unsigned int gotos[2]; /* the true and the false successor */
	int goto_count;
};

/* What the walk of one function holds until its closing brace. */
struct function_walk {
	struct gimple_function *function;
	struct strmap types;       /* SSA name -> its declared type */
	struct strmap definitions; /* SSA name -> the right-hand side assigned to it */
	struct call *calls;
	size_t call_count, call_capacity;
	struct branch *branches;
	size_t branch_count, branch_capacity;
	unsigned int block;
	bool in_body, in_blocks;
	const struct strmap *split; /* "file:line:column" -> its hints before inlining */
};

static bool identifier_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

/* Frees the keys and values of map, then map. */
static void free_map(struct strmap *map)
{
	size_t i;

	for (i = 0; i < map->capacity; i++)
		if (map->slots[i].key) {
			free((char *)map->slots[i].key);
			free(map->slots[i].value);
		}
	strmap_free(map);
}

/* Sets map[key] to a copy of value (the last one wins). */
static void map_set(struct strmap *map, const char *key, size_t key_length, const char *value,
		    size_t value_length)
{
	char *k = xstrndup(key, key_length);
	void **slot = strmap_slot(map, k);

	if (*slot) {
		free(k);
		free(*slot);
	}
	*slot = xstrndup(value, value_length);
}

/* Reads "[FILE:LINE:COL]" or "[FILE:LINE:COL discrim N]" at the start of
   text into hint's place; returns what follows "] ", or NULL when text has
   no location. */
static const char *read_location(const char *text, const char *end, struct gimple_hint *hint)
{
	const char *p;

	if (*text != '[')
		return NULL;
	for (p = text + 1; p < end; p++) {
		const char *q = p, *digits;
		unsigned long line, column;

		if (*p != ']')
			continue;
		/* back over " discrim N", then ":COL" and ":LINE" */
		q = p;
		while (q > text && isdigit((unsigned char)q[-1]))
			q--;
		if (q - text > 9 && strncmp(q - 9, " discrim ", 9) == 0)
			q -= 9;
		else
			q = p;
		digits = q;
		while (digits > text && isdigit((unsigned char)digits[-1]))
			digits--;
		if (digits == q || digits[-1] != ':')
			continue;
		column = strtoul(digits, NULL, 10);
		q = digits - 1;
		digits = q;
		while (digits > text && isdigit((unsigned char)digits[-1]))
			digits--;
		if (digits == q || digits[-1] != ':' || digits - 1 <= text + 1)
			continue;
		line = strtoul(digits, NULL, 10);
		if (line > UINT_MAX || column > UINT_MAX)
			continue;
		free(hint->file);
		hint->file = xstrndup(text + 1, (size_t)(digits - 1 - (text + 1)));
		hint->line = (unsigned int)line;
		hint->column = (unsigned int)column;
		return p + 1 < end && p[1] == ' ' ? p + 2 : p + 1;
	}
	return NULL;
}

/* Records "LHS = __builtin_expect (ARG, VALUE);" or a call whose value is
   dropped, with its location. */
static void add_call(struct function_walk *w, const char *lhs, size_t lhs_length,
		     const char *arguments, const char *end, const struct gimple_hint *where)
{
	struct call *c = ARRAY_PUSH(w->calls, w->call_count, w->call_capacity);
	const char *comma = NULL, *p;
	int depth = 0;
	char *value_end;

	memset(c, 0, sizeof(*c));
	c->hint.file = xstrdup(where->file ? where->file : "?");
	c->hint.line = where->line;
	c->hint.column = where->column;
	c->hint.block = w->block;
	c->lhs = lhs ? xstrndup(lhs, lhs_length) : NULL;
	for (p = arguments; p < end && !comma; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ',' && depth == 0)
			comma = p;
	}
	if (!comma) {
		c->argument = xstrdup("");
		c->hint.reason = xstrdup("the compiler's dump of the call cannot be read");
		return;
	}
	c->argument = xstrndup(arguments, (size_t)(comma - arguments));
	errno = 0;
	c->hint.expect = strtol(comma + 2, &value_end, 10);
	c->hint.expect_known = errno == 0 && value_end > comma + 2 && *value_end == ')';
}

/* Reads "if (LEFT OP RIGHT)" as the branch ending the current block. */
static void add_branch(struct function_walk *w, const char *text, const char *end)
{
	struct branch *b;
	const char *p = text + 4, *left_end, *op, *op_end;

	if (end - text < 5 || end[-1] != ')')
		return;
	left_end = p;
	while (left_end < end && *left_end != ' ')
		left_end++;
	op = left_end + 1;
	op_end = op;
	while (op_end < end && *op_end != ' ')
		op_end++;
	if (op_end >= end - 1)
		return;
	b = ARRAY_PUSH(w->branches, w->branch_count, w->branch_capacity);
	memset(b, 0, sizeof(*b));
	b->block = w->block;
	b->left = xstrndup(p, (size_t)(left_end - p));
	b->op = xstrndup(op, (size_t)(op_end - op));
	b->right = xstrndup(op_end + 1, (size_t)(end - 1 - (op_end + 1)));
}

/* Reads "goto <bb N>;" after an if: its true, then its false successor. */
static void add_goto(struct function_walk *w, const char *text)
{
	struct branch *b = w->branch_count ? &w->branches[w->branch_count - 1] : NULL;
	unsigned long n;

	if (!b || b->block != w->block || b->goto_count >= 2 ||
	    strncmp(text, "goto <bb ", 9) != 0 || !isdigit((unsigned char)text[9]))
		return;
	n = strtoul(text + 9, NULL, 10);
	if (n <= UINT_MAX)
		b->gotos[b->goto_count++] = (unsigned int)n;
}

/* Reads one line of a function body. */
static void walk_line(struct function_walk *w, const char *line, const char *end)
{
	struct gimple_hint where = { 0 };
	const char *text = line, *p, *equals;
	static const char hint[] = "__builtin_expect (";

	if (strncmp(line, ";;   basic block ", 17) == 0) {
		unsigned long n = strtoul(line + 17, NULL, 10);

		w->block = n <= UINT_MAX ? (unsigned int)n : 0;
		w->in_blocks = true;
		return;
	}
	if (*line == ';')
		return;
	while (text < end && *text == ' ')
		text++;
	if (*text == '[') {
		p = read_location(text, end, &where);
		if (p)
			text = p;
	}
	if (!w->in_blocks) {
		/* a declaration: "TYPE NAME;" */
		const char *name_end = end - 1, *name;

		if (end > text && *name_end == ';') {
			name = name_end;
			while (name > text && identifier_char(name[-1]))
				name--;
			if (name > text && name[-1] == ' ' && name < name_end)
				map_set(&w->types, name, (size_t)(name_end - name), text,
					(size_t)(name - 1 - text));
		}
	} else if (strncmp(text, "if (", 4) == 0) {
		add_branch(w, text, end);
	} else if (strncmp(text, "goto <bb ", 9) == 0) {
		add_goto(w, text);
	} else if (strncmp(text, hint, sizeof(hint) - 1) == 0) {
		add_call(w, NULL, 0, text + sizeof(hint) - 1, end, &where);
	} else {
		for (p = text; p < end && identifier_char(*p); p++)
			;
		equals = p;
		if (p > text && end - p > 3 && strncmp(p, " = ", 3) == 0) {
			const char *rhs = p + 3, *rhs_end = end;

			if (rhs_end > rhs && rhs_end[-1] == ';')
				rhs_end--;
			map_set(&w->definitions, text, (size_t)(equals - text), rhs,
				(size_t)(rhs_end - rhs));
			if (strncmp(rhs, hint, sizeof(hint) - 1) == 0)
				add_call(w, text, (size_t)(equals - text), rhs + sizeof(hint) - 1,
					 rhs_end, &where);
		}
	}
	free(where.file);
}

static bool is_comparison(const char *op)
{
	return strcmp(op, "==") == 0 || strcmp(op, "!=") == 0 || strcmp(op, "<") == 0 ||
	       strcmp(op, ">") == 0 || strcmp(op, "<=") == 0 || strcmp(op, ">=") == 0;
}

/* Whether name's value is 0 or 1 whatever happens: a constant 0 or 1, a
   _Bool, a comparison, or a conversion of one of these. */
static bool is_truth_value(const struct function_walk *w, const char *name, int depth)
{
	const char *type = strmap_get(&w->types, name), *rhs, *p;
	char *inner;
	bool yes;

	if (strcmp(name, "0") == 0 || strcmp(name, "1") == 0)
		return true;
	if (type && strcmp(type, "_Bool") == 0)
		return true;
	rhs = strmap_get(&w->definitions, name);
	if (!rhs || depth > 8)
		return false;
	if (rhs[0] == '(' && (p = strstr(rhs, ") ")) && !strchr(p + 2, ' ')) {
		inner = xstrdup(p + 2);
		yes = is_truth_value(w, inner, depth + 1);
		free(inner);
		return yes;
	}
	/* "A OP B" with OP a comparison */
	p = strchr(rhs, ' ');
	if (p && strchr(p + 1, ' ')) {
		const char *op_end = strchr(p + 1, ' ');
		char *op = xstrndup(p + 1, (size_t)(op_end - p - 1));

		yes = is_comparison(op) && !strchr(op_end + 1, ' ');
		free(op);
		return yes;
	}
	return false;
}

static bool is_integer_conversion(const char *type)
{
	static const char *const types[] = {
		"int", "unsigned int", "long int", "long unsigned int",
		"long long int", "long long unsigned int", NULL
	};
	int i;

	for (i = 0; types[i]; i++)
		if (strcmp(type, types[i]) == 0)
			return true;
	return false;
}

/* The branch of c's block that tests c's value (directly, or through one
   integer conversion when the value is 0 or 1), or NULL. */
static const struct branch *branch_on(const struct function_walk *w, const struct call *c,
				      bool truth)
{
	size_t i;

	if (!c->lhs)
		return NULL;
	for (i = 0; i < w->branch_count; i++) {
		const struct branch *b = &w->branches[i];
		const char *rhs;

		if (b->block != c->hint.block || b->goto_count != 2)
			continue;
		if (strcmp(b->left, c->lhs) == 0)
			return b;
		rhs = strmap_get(&w->definitions, b->left);
		if (truth && rhs && rhs[0] == '(') {
			const char *close = strstr(rhs, ") ");
			char *type = close ? xstrndup(rhs + 1, (size_t)(close - rhs - 1)) : NULL;
			bool converts = close && strcmp(close + 2, c->lhs) == 0 &&
					is_integer_conversion(type);

			free(type);
			if (converts)
				return b;
		}
	}
	return NULL;
}

/* Fills c's branch blocks, or its reason. */
static void resolve_call(struct function_walk *w, struct call *c)
{
	bool truth = is_truth_value(w, c->argument, 0);
	const struct branch *b;
	char *end;
	long constant;
	bool true_is_right;

	if (c->hint.reason)
		return;
	if (!c->hint.expect_known) {
		c->hint.reason = xstrdup("the expected value is no integer constant in the compiler's view");
		return;
	}
	b = branch_on(w, c, truth);
	if (!b) {
		c->hint.reason = xstrdup("the value is not branched on (used as a value, or by a "
					 "switch): no branch counts it");
		return;
	}
	errno = 0;
	constant = strtol(b->right, &end, 10);
	if (errno || end == b->right || *end || (strcmp(b->op, "==") != 0 && strcmp(b->op, "!=") != 0)) {
		c->hint.reason = xasprintf("the branch tests the value with '%s %s': its counts "
					   "cannot tell how often it was %ld", b->op, b->right,
					   c->hint.expect);
		return;
	}
	if (constant == c->hint.expect) {
		true_is_right = strcmp(b->op, "==") == 0;
	} else if (truth && (constant == 0 || constant == 1) &&
		   (c->hint.expect == 0 || c->hint.expect == 1)) {
		/* a value of 0 or 1 that is not the constant is the other one */
		true_is_right = strcmp(b->op, "!=") == 0;
	} else {
		c->hint.reason = xasprintf("the branch tests the value against %ld, and the value "
					   "may be other than 0 and 1: its counts cannot tell how "
					   "often it was %ld", constant, c->hint.expect);
		return;
	}
	if (b->gotos[0] == b->gotos[1]) {
		c->hint.reason = xstrdup("both ways of the branch lead to one block");
		return;
	}
	c->hint.block = b->block;
	c->hint.right_block = b->gotos[true_is_right ? 0 : 1];
	c->hint.wrong_block = b->gotos[true_is_right ? 1 : 0];
}

static char *place_key(const char *file, unsigned int line, unsigned int column)
{
	return xasprintf("%s:%u:%u", file, line, column);
}

/* Gives c a reason when gcc made several hints of its one in the source
   (fold_builtin_expect hints each operand of a && or || apart). */
static void resolve_split(struct function_walk *w, struct call *c)
{
	char *key = place_key(c->hint.file, c->hint.line, c->hint.column);
	uintptr_t pieces = (uintptr_t)strmap_get(w->split, key);

	free(key);
	if (pieces > 1 && !c->hint.reason)
		c->hint.reason = xasprintf("gcc hints each operand of its && or || apart (%lu "
					   "branches): no branch tests the value of the whole",
					   (unsigned long)pieces);
}

/* Matches the calls of the function walked with their branches and moves
   them into its function; frees what the walk held. */
static void finish_function(struct function_walk *w)
{
	size_t i;

	for (i = 0; i < w->call_count; i++) {
		struct call *c = &w->calls[i];

		resolve_split(w, c);
		resolve_call(w, c);
		*ARRAY_PUSH(w->function->hints, w->function->hint_count,
			    w->function->hint_capacity) = c->hint;
		free(c->lhs);
		free(c->argument);
	}
	free(w->calls);
	for (i = 0; i < w->branch_count; i++) {
		free(w->branches[i].left);
		free(w->branches[i].op);
		free(w->branches[i].right);
	}
	free(w->branches);
	free_map(&w->types);
	free_map(&w->definitions);
	memset(w, 0, sizeof(*w));
}

/* The assembler name in ";; Function NAME (ASMNAME, funcdef_no=...)"
   (NAME may hold parentheses: C++). */
static char *function_name(const char *line, const char *end)
{
	char *copy = xstrndup(line, (size_t)(end - line)), *comma, *open, *name;

	comma = strstr(copy, ", funcdef_no=");
	if (comma) {
		*comma = '\0';
		open = strrchr(copy, '(');
		if (open && open > copy + 12) {
			name = xstrdup(open + 1);
			free(copy);
			return name;
		}
	}
	name = xstrdup(copy + 12);
	free(copy);
	return name;
}

int gimple_split_places(const char *path, struct strmap *split, char **why)
{
	struct strmap here = { 0 };
	const char *text, *line, *end;
	size_t size, i;
	void *map;

	if (map_file(path, &map, &size, why) < 0)
		return -1;
	text = map;
	for (line = text; line <= text + size; line = end + 1) {
		struct gimple_hint where = { 0 };
		const char *p;

		end = memchr(line, '\n', (size_t)(text + size - line));
		if (!end)
			end = text + size;
		if ((end - line == 1 && *line == '}') || end == text + size) {
			/* a function ends: its places with more than one hint */
			for (i = 0; i < here.capacity; i++) {
				if (!here.slots[i].key)
					continue;
				if ((uintptr_t)here.slots[i].value > 1) {
					void **slot = strmap_slot(split, here.slots[i].key);

					if (*slot)
						free((char *)here.slots[i].key);
					if ((uintptr_t)*slot < (uintptr_t)here.slots[i].value)
						*slot = here.slots[i].value;
				} else {
					free((char *)here.slots[i].key);
				}
			}
			strmap_free(&here);
			memset(&here, 0, sizeof(here));
			if (end == text + size)
				break;
			continue;
		}
		for (p = line; p < end && *p == ' '; p++)
			;
		if (p < end && *p == '[' && (p = read_location(p, end, &where)) &&
		    memmem(p, (size_t)(end - p), "__builtin_expect (", 18)) {
			char *key = place_key(where.file, where.line, where.column);
			void **slot = strmap_slot(&here, key);

			if (*slot)
				free(key);
			*slot = (void *)((uintptr_t)*slot + 1);
		}
		free(where.file);
	}
	munmap(map, size);
	return 0;
}

void gimple_free_split(struct strmap *split)
{
	size_t i;

	for (i = 0; i < split->capacity; i++)
		free((char *)split->slots[i].key);
	strmap_free(split);
}

int gimple_read(const char *path, const struct strmap *split, struct gimple_function **functions,
		size_t *count, char **why)
{
	struct gimple_function *list = NULL;
	struct function_walk walk = { .split = split };
	size_t n = 0, capacity = 0, size;
	const char *text, *line, *end;
	void *map;

	*functions = NULL;
	*count = 0;
	if (map_file(path, &map, &size, why) < 0)
		return -1;
	text = map;
	for (line = text; line < text + size; line = end + 1) {
		end = memchr(line, '\n', (size_t)(text + size - line));
		if (!end)
			end = text + size;
		if ((size_t)(end - line) > 12 && strncmp(line, ";; Function ", 12) == 0) {
			if (walk.function)
				finish_function(&walk);
			grow_array(&list, &capacity, n + 1, sizeof(*list));
			memset(&list[n], 0, sizeof(list[n]));
			list[n].name = function_name(line, end);
			walk.function = &list[n++];
			walk.split = split;
			continue;
		}
		if (!walk.function)
			continue;
		if (end - line == 1 && *line == '{') {
			walk.in_body = true;
		} else if (end - line == 1 && *line == '}') {
			finish_function(&walk);
		} else if (walk.in_body) {
			walk_line(&walk, line, end);
		}
	}
	if (walk.function)
		finish_function(&walk);
	munmap(map, size);
	*functions = list;
	*count = n;
	return 0;
}

void gimple_free(struct gimple_function *functions, size_t count)
{
	size_t i, j;

	for (i = 0; i < count; i++) {
		for (j = 0; j < functions[i].hint_count; j++) {
			free(functions[i].hints[j].file);
			free(functions[i].hints[j].reason);
		}
		free(functions[i].hints);
		free(functions[i].name);
	}
	free(functions);
}
