#include "steps.h"
#include "files.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void steps_step(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("[%s] ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void steps_log_tail(const char *log, int lines)
{
	FILE *f = fopen(log, "r");
	char **ring = xcalloc(lines, sizeof(*ring)), *line = NULL;
	size_t cap = 0, count = 0, i;

	if (!f) {
		free(ring);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		free(ring[count % lines]);
		ring[count % lines] = xstrdup(line);
		count++;
	}
	fclose(f);
	i = count > (size_t)lines ? count - lines : 0;
	for (; i < count; i++) {
		fprintf(stderr, "    %s", ring[i % lines]);
		free(ring[i % lines]);
	}
	free(line);
	free(ring);
}

const char *steps_age(long seconds)
{
	static char text[32];

	if (seconds < 120)
		snprintf(text, sizeof(text), "%ld s", seconds);
	else if (seconds < 7200)
		snprintf(text, sizeof(text), "%ld min", seconds / 60);
	else if (seconds < 172800)
		snprintf(text, sizeof(text), "%ld h", seconds / 3600);
	else
		snprintf(text, sizeof(text), "%ld days", seconds / 86400);
	return text;
}

/* An object as the build folder names it: profile names turn '/' into '#'. */
const char *steps_object_path(const char *name)
{
	static char text[4096];
	char *p;

	snprintf(text, sizeof(text), "%s", name);
	for (p = text; *p; p++)
		if (*p == '#')
			*p = '/';
	return text;
}

void steps_no_data(const struct store_meta *meta)
{
	size_t i;

	for (i = 0; i < meta->nobjects; i++)
		if (!meta->has_data[i])
			printf("    no data: %s\n", steps_object_path(meta->objects[i]));
}

void steps_objects(const char *label, const struct store_meta *meta)
{
	size_t i, without = 0;

	for (i = 0; i < meta->nobjects; i++)
		without += !meta->has_data[i];
	steps_step(label, "%zu object%s instrumented, %zu with profile data, %zu without%s",
		    meta->nobjects, meta->nobjects == 1 ? "" : "s", meta->nobjects - without, without,
		    without ? ":" : "");
	steps_no_data(meta);
}

bool steps_source_changed(const struct store_meta *meta, size_t i)
{
	uint64_t h;

	/* a source that cannot be read any more changed too */
	return !(files_hash(meta->sources[i], &h, NULL) == 0 && h == meta->hashes[i]);
}

bool steps_sources_unknown(const struct store_meta *meta)
{
	return meta->nsources == 0 && meta->nobjects > 0;
}

size_t steps_stale_sources(const struct store_meta *meta)
{
	size_t i, changed = 0;

	if (steps_sources_unknown(meta)) {
		printf("    no source was recorded at training (gcov-dump failed): whether one changed cannot be "
		       "told\n");
		return 1;
	}
	for (i = 0; i < meta->nsources; i++) {
		if (!steps_source_changed(meta, i))
			continue;
		changed++;
		printf("    changed since training: %s\n", meta->sources[i]);
	}
	return changed;
}
