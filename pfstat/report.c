#define _GNU_SOURCE
#include "report.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *const metric_names[METRICS] = { "minor faults", "major faults", "max RSS (KiB)", "user (ms)",
						   "system (ms)", "wall (ms)" };
static const char *const metric_keys[METRICS] = { "minor_faults", "major_faults", "max_rss_kib", "user_ms",
						  "system_ms", "wall_ms" };
static const char *const metric_short[METRICS] = { "minor", "major", "RSS KiB", "user ms", "sys ms", "wall ms" };

void series_init(struct series *s, const char *label, char *const *argv, size_t runs, const struct cold_set *set)
{
	size_t per_run = (METRICS + 1) * sizeof(double) + sizeof(size_t) + set->nfiles * sizeof(double) +
			 set->ndevices * sizeof(struct cold_reads);
	size_t page = sysconf(_SC_PAGESIZE), bytes = (runs * per_run + page - 1) / page * page;
	char *p;
	int i;

	memset(s, 0, sizeof(*s));
	s->label = label;
	s->argv = argv;
	/* untouched pages cost nothing: only the runs made are ever written */
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fatal("cannot keep the figures of %zu runs: mmap failed: %m", runs);
	if (madvise(p, bytes, MADV_DONTFORK) < 0)
		fatal("madvise(MADV_DONTFORK) failed: %m");
	/* doubles first: every array stays aligned */
	for (i = 0; i < METRICS; i++, p += runs * sizeof(double))
		s->values[i] = (double *)p;
	s->floor = (double *)p;
	p += runs * sizeof(double);
	s->pages = (double *)p;
	p += runs * set->nfiles * sizeof(double);
	s->reads = (struct cold_reads *)p;
	p += runs * set->ndevices * sizeof(struct cold_reads);
	s->order = (size_t *)p;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median, minimum and maximum of n values (sorted in a copy). */
static void spread(const double *v, size_t n, double out[3])
{
	double *c = xmalloc((n + 1) * sizeof(double));

	memcpy(c, v, n * sizeof(double));
	qsort(c, n, sizeof(double), by_value);
	out[0] = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	out[1] = c[0];
	out[2] = c[n - 1];
	free(c);
}

/* The column of one cold figure: pages of file f (field 0), or device f's
   requests (1) or sectors (2); false when a run's device counts are not
   its files' (the column is then not a figure). */
static bool column(const struct series *s, const struct cold_set *set, size_t f, int field, double *out)
{
	size_t k;

	for (k = 0; k < s->count; k++) {
		const struct cold_reads *r = &s->reads[k * set->ndevices + f];

		if (field == 0) {
			out[k] = s->pages[k * set->nfiles + f];
			continue;
		}
		if (r->others)
			return false;
		out[k] = field == 1 ? r->requests : r->sectors;
	}
	return true;
}

/* Whether run k's maximum resident set is the command's own, not the
   floor a forked pfstat gives it. */
static bool rss_own(const struct series *s, size_t k)
{
	return s->values[MAXRSS][k] > s->floor[k] + RSS_FLOOR_MARGIN;
}

/* Whether every run's maximum resident set is the command's own. */
static bool rss_clean(const struct series *s)
{
	size_t k;

	for (k = 0; k < s->count; k++)
		if (!rss_own(s, k))
			return false;
	return true;
}

/* Says on stderr why the maximum resident set of s is not shown. */
static void warn_rss(const struct series *s)
{
	size_t k, runs = 0;
	double most = 0;

	for (k = 0; k < s->count; k++) {
		if (!rss_own(s, k)) {
			runs++;
			most = s->floor[k] > most ? s->floor[k] : most;
		}
	}
	warn("max RSS of %s is not shown: in %zu of %zu runs it was no more than %d KiB above the %.0f KiB that "
	     "pfstat's forked copy held before exec, which the kernel counts as the command's own maximum: the "
	     "command's own is smaller, or too close to it to be told apart", s->label, runs, s->count,
	     RSS_FLOOR_MARGIN, most);
}

/* Whether every run's counts of device d can be its files'. */
static bool device_clean(const struct series *s, const struct cold_set *set, size_t d)
{
	size_t k;

	for (k = 0; k < s->count; k++)
		if (s->reads[k * set->ndevices + d].others)
			return false;
	return true;
}

/* The ratio of medians b/a for the text report: "1.02x", or why there is
   none ("n/a (0/0)", "n/a (12.0/0)"). */
static void print_ratio(double a, double b)
{
	if (a > 0)
		printf(" %7.2fx", b / a);
	else if (b == 0)
		printf("  n/a (0/0)");
	else
		printf("  n/a (%.1f/0)", b);
}

/* One row: the first series' median, min, max; with a second, its median
   and the ratio.  NULL values: no figure (n/a, and why). */
static void row(const char *name, const double *a, const double *b, size_t ns, const char *none)
{
	printf("%-22s", name);
	if (a)
		printf(" %12.1f %12.1f %12.1f", a[0], a[1], a[2]);
	else
		printf(" %12s %12s %12s", "n/a", "", "");
	if (ns > 1) {
		if (b)
			printf(" %12.1f", b[0]);
		else
			printf(" %12s", "n/a");
		if (a && b)
			print_ratio(a[0], b[0]);
		else
			printf(" %8s", "n/a");
	}
	if ((!a || (ns > 1 && !b)) && none)
		printf("  (%s)", none);
	putchar('\n');
}

/* Says on stderr why device d's counts of series s are not shown. */
static void warn_others(const struct series *s, const struct cold_set *set, size_t d)
{
	size_t k, runs = 0;
	double most = 0;
	char *files = cold_device_files(set, d);

	for (k = 0; k < s->count; k++) {
		const struct cold_reads *r = &s->reads[k * set->ndevices + d];

		if (r->others) {
			runs++;
			most = r->others > most ? r->others : most;
		}
	}
	if (most < 0)
		warn("%s: its read counters went back during a run of %s: its read requests are not shown",
		     set->devices[d].dev.name, s->label);
	else
		warn("%s: its read counts are not shown for %s: in %zu of %zu runs the device read up to %.0f sectors "
		     "more than the pages of %s that came in (other reads: a shared disk); --read-ahead-kb gives "
		     "the files a device of their own", set->devices[d].dev.name, s->label, runs, s->count, most, files);
	free(files);
}

/* Every run's figures, in the order run: a table. */
static void print_runs(const struct series *s, size_t ns, const struct cold_set *set)
{
	size_t ncols = 2 + METRICS + set->nfiles + 2 * set->ndevices, total = 0, i, c, f, at[2] = { 0, 0 };
	char **head = xcalloc(ncols, sizeof(char *));
	int *width = xcalloc(ncols, sizeof(int));

	for (i = 0; i < ns; i++)
		total += s[i].count;
	c = 0;
	head[c++] = xstrdup("run");
	head[c++] = xstrdup(ns > 1 ? "command" : "");
	for (i = 0; i < METRICS; i++)
		head[c++] = xstrdup(metric_short[i]);
	for (f = 0; f < set->nfiles; f++)
		head[c++] = xasprintf("pages %s", set->files[f].path);
	for (f = 0; f < set->ndevices; f++) {
		head[c++] = xasprintf("requests %s", set->devices[f].dev.name);
		head[c++] = xasprintf("sectors %s", set->devices[f].dev.name);
	}
	/* times to the microsecond, as wait4 gives them: the medians printed
	   above follow from these, not from values rounded again */
	for (c = 0; c < ncols; c++)
		width[c] = strlen(head[c]) > 9 ? strlen(head[c]) : 9;
	width[0] = 5;
	printf("every run, in the order run%s:\n", ns > 1 ? " (command 2: the --compare one)" : "");
	for (c = 0; c < ncols; c++)
		if (c != 1 || ns > 1)
			printf("%s%*s", c ? "  " : "", width[c], head[c]);
	putchar('\n');
	for (i = 1; i <= total; i++) {
		size_t side = ns > 1 && at[1] < s[1].count && s[1].order[at[1]] == i ? 1 : 0, k = at[side]++;
		const struct series *x = &s[side];

		c = 0;
		printf("%*zu", width[c++], i);
		if (ns > 1)
			printf("  %*zu", width[c], side + 1);
		c++;
		for (f = 0; f < METRICS; f++, c++) {
			if (f == MAXRSS && !rss_own(x, k))
				printf("  %*s", width[c], "n/a");
			else
				printf(f == UTIME || f == STIME || f == WALL ? "  %*.3f" : "  %*.0f", width[c],
				       x->values[f][k]);
		}
		for (f = 0; f < set->nfiles; f++, c++)
			printf("  %*.0f", width[c], x->pages[k * set->nfiles + f]);
		for (f = 0; f < set->ndevices; f++, c += 2) {
			const struct cold_reads *r = &x->reads[k * set->ndevices + f];

			if (r->others)
				printf("  %*s  %*s", width[c], "n/a", width[c + 1], "n/a");
			else
				printf("  %*.0f  %*.0f", width[c], r->requests, width[c + 1], r->sectors);
		}
		putchar('\n');
	}
	for (c = 0; c < ncols; c++)
		free(head[c]);
	free(head);
	free(width);
}

void report_text(const struct series *s, size_t ns, const struct cold_set *set, const char *input)
{
	static const char *const cold_names[3] = { "  pages read", "  read requests", "  sectors read" };
	size_t most = ns > 1 && s[1].count > s[0].count ? s[1].count : s[0].count;
	double a[3], b[3], *col = xmalloc((most + 1) * sizeof(double)), *col2 = xmalloc((most + 1) * sizeof(double));
	size_t i, f;
	int field;

	printf("pfstat: %s", s[0].label);
	if (ns > 1)
		printf("\n  against: %s", s[1].label);
	printf(" (%zu run%s%s)\n", s[0].count, s[0].count == 1 ? "" : "s", ns > 1 ? " each, alternating" : "");
	if (input)
		printf("standard input: %s\n", input);
	if (ns > 1)
		printf("%-22s %12s %12s %12s %12s %8s\n", "", "median", "min", "max", "against", "ratio");
	else
		printf("%-22s %12s %12s %12s\n", "", "median", "min", "max");
	for (i = 0; i < METRICS; i++) {
		bool ok_a = i != MAXRSS || rss_clean(&s[0]), ok_b = ns > 1 && (i != MAXRSS || rss_clean(&s[1]));

		spread(s[0].values[i], s[0].count, a);
		if (ns > 1)
			spread(s[1].values[i], s[1].count, b);
		row(metric_names[i], ok_a ? a : NULL, ok_b ? b : NULL, ns, "below pfstat's own floor");
	}
	for (i = 0; i < ns; i++)
		if (!rss_clean(&s[i]))
			warn_rss(&s[i]);
	for (f = 0; f < set->nfiles; f++) {
		printf("cold: %s (%zu pages)\n", set->files[f].path, set->files[f].pages);
		column(&s[0], set, f, 0, col);
		spread(col, s[0].count, a);
		if (ns > 1) {
			column(&s[1], set, f, 0, col2);
			spread(col2, s[1].count, b);
		}
		row(cold_names[0], a, b, ns, NULL);
	}
	for (f = 0; f < set->ndevices; f++) {
		char *files = cold_device_files(set, f), *none;

		printf("device %s", set->devices[f].dev.name);
		if (set->devices[f].read_ahead_kb >= 0)
			printf(" (read-ahead %ld KiB)", set->devices[f].read_ahead_kb);
		printf(": %s\n", files);
		none = xasprintf("other reads on %s", set->devices[f].dev.name);
		for (field = 1; field < 3; field++) {
			bool ok_a = column(&s[0], set, f, field, col), ok_b = ns > 1 && column(&s[1], set, f, field, col2);

			if (ok_a)
				spread(col, s[0].count, a);
			if (ok_b)
				spread(col2, s[1].count, b);
			row(cold_names[field], ok_a ? a : NULL, ok_b ? b : NULL, ns, none);
		}
		for (i = 0; i < ns; i++)
			if (!device_clean(&s[i], set, f))
				warn_others(&s[i], set, f);
		free(none);
		free(files);
	}
	print_runs(s, ns, set);
	free(col);
	free(col2);
}

/* A number, or null for no figure. */
static void json_number(double v, bool ok)
{
	if (ok && isfinite(v))
		printf("%.3f", v);
	else
		printf("null");
}

/* "key": {"median", "min", "max", "values"}; run_ok (NULL: every run is)
   says which runs' values are figures: the others are null, and so are the
   median, minimum and maximum when any run's is not. */
static void json_spread(const char *key, const double *v, size_t n, const bool *run_ok)
{
	double a[3];
	size_t k;
	bool ok = true;

	for (k = 0; k < n && run_ok; k++)
		ok = ok && run_ok[k];
	printf("\"%s\": {", key);
	if (ok) {
		spread(v, n, a);
		printf("\"median\": %.3f, \"min\": %.3f, \"max\": %.3f", a[0], a[1], a[2]);
	} else {
		printf("\"median\": null, \"min\": null, \"max\": null");
	}
	printf(", \"values\": [");
	for (k = 0; k < n; k++) {
		printf("%s", k ? ", " : "");
		json_number(v[k], !run_ok || run_ok[k]);
	}
	printf("]}");
}

static void json_series(const struct series *s, const struct cold_set *set)
{
	double *col = xmalloc((s->count + 1) * sizeof(double)), *col2 = xmalloc((s->count + 1) * sizeof(double));
	bool *run_ok = xcalloc(s->count + 1, sizeof(bool));
	size_t i, f, k;

	printf("{\"command\": ");
	json_print_string(s->label);
	printf(", \"argv\": [");
	for (i = 0; s->argv[i]; i++) {
		printf("%s", i ? ", " : "");
		json_print_string(s->argv[i]);
	}
	printf("], \"runs\": %zu, \"order\": [", s->count);
	for (k = 0; k < s->count; k++)
		printf("%s%zu", k ? ", " : "", s->order[k]);
	printf("]");
	for (i = 0; i < METRICS; i++) {
		printf(", ");
		for (k = 0; k < s->count; k++)
			run_ok[k] = i != MAXRSS || rss_own(s, k);
		json_spread(metric_keys[i], s->values[i], s->count, run_ok);
	}
	printf(", ");
	json_spread("max_rss_floor_kib", s->floor, s->count, NULL);
	printf(", \"cold\": [");
	for (f = 0; f < set->nfiles; f++) {
		printf("%s{\"file\": ", f ? ", " : "");
		json_print_string(set->files[f].path);
		printf(", \"pages\": %zu, \"device\": ", set->files[f].pages);
		if (set->files[f].device != COLD_NO_DEVICE)
			json_print_string(set->devices[set->files[f].device].dev.name);
		else
			printf("null");
		column(s, set, f, 0, col);
		printf(", ");
		json_spread("pages_read", col, s->count, NULL);
		printf("}");
	}
	printf("], \"devices\": [");
	for (f = 0; f < set->ndevices; f++) {
		bool ok = device_clean(s, set, f);
		double most = 0;

		printf("%s{\"device\": ", f ? ", " : "");
		json_print_string(set->devices[f].dev.name);
		printf(", \"read_ahead_kb\": ");
		json_number(set->devices[f].read_ahead_kb, set->devices[f].read_ahead_kb >= 0);
		printf(", \"files\": [");
		for (i = k = 0; i < set->nfiles; i++) {
			if (set->files[i].device != f)
				continue;
			printf("%s", k++ ? ", " : "");
			json_print_string(set->files[i].path);
		}
		for (k = 0; k < s->count; k++) {
			double o = s->reads[k * set->ndevices + f].others;

			most = o < 0 || most < 0 ? -1 : o > most ? o : most;
		}
		printf("], \"others\": %s, \"other_sectors_max\": ", ok ? "false" : "true");
		json_number(most, most >= 0);
		for (k = 0; k < s->count; k++) {
			const struct cold_reads *r = &s->reads[k * set->ndevices + f];

			run_ok[k] = !r->others;
			col[k] = r->requests;
			col2[k] = r->sectors;
		}
		printf(", ");
		json_spread("read_requests", col, s->count, run_ok);
		printf(", ");
		json_spread("sectors_read", col2, s->count, run_ok);
		printf("}");
	}
	printf("]}");
	free(col);
	free(col2);
	free(run_ok);
}

void report_json(const struct series *s, size_t ns, const struct cold_set *set, const char *input)
{
	size_t i;

	printf("{");
	json_print_format("linkopt-pfstat", 2);
	printf("\"stdin\": ");
	if (input)
		json_print_string(input);
	else
		printf("null");
	printf(", \"series\": [");
	for (i = 0; i < ns; i++) {
		printf("%s", i ? ", " : "");
		json_series(&s[i], set);
	}
	printf("]}\n");
	for (i = 0; i < ns; i++) {
		size_t f;

		if (!rss_clean(&s[i]))
			warn_rss(&s[i]);
		for (f = 0; f < set->ndevices; f++)
			if (!device_clean(&s[i], set, f))
				warn_others(&s[i], set, f);
	}
}
