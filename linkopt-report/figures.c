#include "figures.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int figures_read_order(const char *path, double *match_rate, char **why)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *at;
	size_t capacity = 0;
	int status = -1;

	if (!f) {
		*why = xasprintf("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (getline(&line, &capacity, f) > 0 && (at = strstr(line, ", matched ")) &&
	    sscanf(at, ", matched %lf%%", match_rate) == 1 && *match_rate >= 0 && *match_rate <= 100)
		status = 0;
	else if (ferror(f))
		*why = xasprintf("%s: cannot read: %s", path, strerror(errno));
	else
		*why = xasprintf("%s: its first line records no match rate (', matched P%%'): not an order deporder "
				 "emitted from traces", path);
	free(line);
	fclose(f);
	return status;
}

int figures_read_log(const char *path, double *match_rate, bool *has_rate, double *bound, bool *has_bound,
		     char **why)
{
	static const char matched[] = "matched an input section of the link (";
	FILE *f = fopen(path, "r");
	char *line = NULL, *at;
	size_t capacity = 0;
	double value;

	*has_rate = *has_bound = false;
	if (!f) {
		*why = xasprintf("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &capacity, f) > 0) {
		if (strncmp(line, "deporder: ", 10) != 0)
			continue;
		if ((at = strstr(line, matched)) && sscanf(at + sizeof(matched) - 1, "%lf%%", &value) == 1 &&
		    value >= 0 && value <= 100 && (!*has_rate || value < *match_rate)) {
			*match_rate = value;
			*has_rate = true;
		}
		if (!*has_bound && strstr(line, "(the whole-function bound)") && (at = strstr(line, ": at least ")) &&
		    sscanf(at, ": at least %lf pages", &value) == 1 && value >= 0) {
			*bound = value;
			*has_bound = true;
		}
	}
	free(line);
	if (ferror(f)) {
		*why = xasprintf("%s: cannot read: %s", path, strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	if (!*has_rate && !*has_bound) {
		*why = xasprintf("%s: holds no match rate and no whole-function bound: not the messages of a "
				 "deporder run with --trace", path);
		return -1;
	}
	return 0;
}

bool figures_parse_time(const char *text, double *seconds)
{
	char *end;
	double value;

	errno = 0;
	value = strtod(text, &end);
	if (end == text || errno || !isfinite(value) || value < 0)
		return false;
	while (*end == ' ')
		end++;
	if (!strcmp(end, "s"))
		*seconds = value;
	else if (!strcmp(end, "ms"))
		*seconds = value / 1e3;
	else if (!strcmp(end, "us"))
		*seconds = value / 1e6;
	else
		return false;
	return true;
}
