#include "tree.h"
#include "compiles.h"
#include "files.h"
#include "switches.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *record_path(const struct session *s)
{
	return xasprintf("%s/instrumented", s->store.config);
}

void tree_mark(const struct session *s, long started)
{
	char *path = record_path(s), *text = xasprintf("%ld\n", started), *why;

	if (files_write(path, text, strlen(text), false, &why) < 0)
		fatal("%s", why);
	free(text);
	free(path);
}

void tree_unmark(const struct session *s)
{
	char *path = record_path(s);

	if (unlink(path) < 0 && errno != ENOENT)
		warn("%s: unlink failed: %s", path, strerror(errno));
	free(path);
}

/* True when the output o of an instrumented build that began at started
   still holds instrumentation (an archive: was written since, and holds an
   instrumented object; one made since of plain objects is the project's). */
static bool still_instrumented(const struct compile_output *o, long started)
{
	struct stat st;

	if (o->kind == OUTPUT_ARCHIVE && !(stat(o->path, &st) == 0 && st.st_mtime >= started))
		return false;
	return switches_instrumented(o->path);
}

/* Keeps in c the outputs that still hold instrumentation. */
static void keep_instrumented(struct compiles *c, long started)
{
	size_t i, k = 0;

	for (i = 0; i < c->count; i++) {
		struct compile_output *o = &c->outputs[i];

		if (still_instrumented(o, started)) {
			c->outputs[k++] = *o;
		} else {
			free(o->path);
			free(o->dir);
			free(o->name);
		}
	}
	c->count = k;
}

/* The outputs of the instrumented build of the record that still hold
   instrumentation, into *c (each of its outputs listed is one); false when
   there is no record. */
static bool instrumented_outputs(const struct session *s, struct compiles *c)
{
	char *path = record_path(s), *log = xasprintf("%s/gen-build-compiles.log", s->logs), *why = NULL;
	FILE *f = fopen(path, "r");
	long started = 0;

	memset(c, 0, sizeof(*c));
	free(path);
	if (!f) {
		free(log);
		return false;
	}
	if (fscanf(f, "%ld", &started) != 1)
		started = 0;
	fclose(f);
	if (compiles_read(log, started, c, &why) < 0) {
		warn("%s", why);
		free(why);
	}
	free(log);
	keep_instrumented(c, started);
	return true;
}

/* Adds to c the outputs of known that still hold instrumentation and are
   not in it yet. */
static void add_known(struct compiles *c, const struct compiles *known, long started)
{
	size_t i, k, cap = c->count;

	for (i = 0; i < known->count; i++) {
		const struct compile_output *o = &known->outputs[i];
		bool listed = false;

		for (k = 0; k < c->count && !listed; k++)
			listed = !strcmp(c->outputs[k].path, o->path);
		if (listed || !still_instrumented(o, started))
			continue;
		*ARRAY_PUSH(c->outputs, c->count, cap) = (struct compile_output){
			xstrdup(o->path), xstrdup(o->dir), xstrdup(o->name), o->kind,
		};
	}
}

size_t tree_remove_instrumented(const struct session *s, const struct compiles *known, long known_started)
{
	struct compiles c;
	size_t i, removed = 0, count;
	bool recorded = instrumented_outputs(s, &c);

	/* the record and the log are in the store: when it is gone (removed
	   under a running cycle), what the cycle itself knows still goes */
	if (known)
		add_known(&c, known, known_started);
	count = c.count;
	for (i = 0; i < c.count; i++) {
		if (unlink(c.outputs[i].path) < 0) {
			warn("%s: cannot remove the instrumented build's output: %s", c.outputs[i].path,
			     strerror(errno));
			continue;
		}
		printf("    removed instrumented: %s\n", c.outputs[i].path);
		removed++;
	}
	compiles_free(&c);
	/* what could not be removed stays on record, for status */
	if (recorded && removed == count)
		tree_unmark(s);
	return removed;
}

char **tree_instrumented(const struct session *s, size_t *count)
{
	struct compiles c;
	char **paths;
	size_t i;

	*count = 0;
	if (!instrumented_outputs(s, &c) || c.count == 0) {
		compiles_free(&c);
		return NULL;
	}
	paths = xcalloc(c.count, sizeof(*paths));
	for (i = 0; i < c.count; i++)
		paths[i] = xstrdup(c.outputs[i].path);
	*count = c.count;
	compiles_free(&c);
	return paths;
}

size_t tree_report(const struct session *s)
{
	size_t i, n;
	char **paths = tree_instrumented(s, &n);

	for (i = 0; i < n; i++) {
		printf("    instrumented: %s\n", paths[i]);
		free(paths[i]);
	}
	free(paths);
	return n;
}
