#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long total(const struct site *s)
{
	return s->correct + s->incorrect;
}

static bool ratio_over(unsigned long long part, unsigned long long whole, double percent);

static bool wrong_over(const struct site *s, double percent)
{
	return ratio_over(s->incorrect, total(s), percent);
}

/* Constant at compile time on every run, as the kernel's profiler puts apart. */
static bool is_constant(const struct site *s)
{
	return total(s) > 0 && s->constant >= total(s);
}

static int compare_location(const struct site *a, const struct site *b)
{
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return strcmp(a->expression, b->expression);
}

/* Most wrong first (exact ratio), then the most executed. */
static int compare_wrong(const void *pa, const void *pb)
{
	const struct site *a = *(struct site *const *)pa, *b = *(struct site *const *)pb;
	unsigned long long ta = total(a), tb = total(b);
	unsigned __int128 left = (unsigned __int128)a->incorrect * tb;
	unsigned __int128 right = (unsigned __int128)b->incorrect * ta;

	if (left != right)
		return left > right ? -1 : 1;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	return compare_location(a, b);
}

static int compare_site_location(const void *pa, const void *pb)
{
	return compare_location(*(struct site *const *)pa, *(struct site *const *)pb);
}

/* Room for a percentage as percent_text writes it. */
#define PERCENT_SIZE 32

static bool ratio_over(unsigned long long part, unsigned long long whole, double percent)
{
	return percent >= 0 && whole > 0 && (double)part * 100.0 > percent * (double)whole;
}

/* Whether shown / unit (a percentage) is above every gate of gates[0..n)
   that part / whole is above. */
static bool shows_gates(unsigned __int128 shown, unsigned long long unit, unsigned long long part,
			unsigned long long whole, const double *gates, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (ratio_over(part, whole, gates[i]) &&
		    !((long double)shown > (long double)gates[i] * (long double)unit))
			return false;
	return true;
}

/* Writes part * 100 / whole into buf, rounded down, with two decimals or
   as many more (up to 15) as it takes for a part above zero to show above
   zero and a ratio above one of the gates (percentages, < 0 for none) to
   show above it: a site that fails a gate never reads 0 or the gate
   itself.  Returns buf. */
static const char *percent_text(char *buf, unsigned long long part, unsigned long long whole,
				const double *gates, int n)
{
	unsigned long long unit = 100; /* 10^decimals */
	unsigned __int128 shown;
	int decimals = 2;

	if (whole == 0) {
		snprintf(buf, PERCENT_SIZE, "0.00");
		return buf;
	}
	for (;;) {
		/* part < 2^64, 100 * unit <= 10^17 < 2^57: no overflow */
		shown = (unsigned __int128)part * 100 * unit / whole;
		if (decimals == 15 ||
		    ((part == 0 || shown > 0) && shows_gates(shown, unit, part, whole, gates, n)))
			break;
		decimals++;
		unit *= 10;
	}
	snprintf(buf, PERCENT_SIZE, "%llu.%0*llu", (unsigned long long)(shown / unit), decimals,
		 (unsigned long long)(shown % unit));
	return buf;
}

/* The percentage of s's runs that went against the hint, as shown. */
static const char *percent_wrong(char *buf, const struct site *s, const struct report_options *o)
{
	const double gates[2] = { o->threshold, o->fail_over };

	return percent_text(buf, s->incorrect, total(s), gates, 2);
}

static const char *state_of(const struct site *s)
{
	if (s->reason)
		return "unmatched";
	if (total(s) == 0)
		return "never-ran";
	return is_constant(s) ? "constant" : "ran";
}

static void print_json(struct site **sites, size_t n, const struct report_options *o,
		       size_t failing, const struct site_table *table)
{
	char percent[PERCENT_SIZE];
	size_t i;

	printf("{");
	json_print_format("linkopt-likely-check-report", 2);
	printf("\"mode\":\"%s\",\"files\":%zu,\"threshold\":", table->profile ? "profile" : "count",
	       table->files_read);
	if (o->threshold >= 0)
		printf("%g", o->threshold);
	else
		fputs("null", stdout);
	printf(",\"failing\":%zu,\"sites\":[", failing);
	for (i = 0; i < n; i++) {
		const struct site *s = sites[i];

		printf("%s\n{\"file\":", i ? "," : "");
		json_print_string(s->file);
		printf(",\"line\":%u,\"function\":", s->line);
		json_print_string(s->function);
		fputs(",\"expression\":", stdout);
		json_print_string(s->expression);
		printf(",\"expect\":%ld,\"state\":\"%s\",\"correct\":%llu,\"incorrect\":%llu,"
		       "\"constant\":%llu,\"percent_incorrect\":%s,\"over_threshold\":%s",
		       s->expect, state_of(s), s->correct, s->incorrect, s->constant,
		       percent_wrong(percent, s, o), wrong_over(s, o->threshold) ? "true" : "false");
		if (s->macro) {
			fputs(",\"macro\":", stdout);
			json_print_string(s->macro);
		}
		if (s->reason) {
			fputs(",\"reason\":", stdout);
			json_print_string(s->reason);
		}
		putchar('}');
	}
	puts("]}");
}

/* Width of the function column: the longest name, up to 32. */
static int function_width;

static void print_site_row(const struct site *s, const struct report_options *o)
{
	char percent[PERCENT_SIZE];

	printf("%c %10llu %10llu %6s  %-*s %s:%u  %s (expect %ld)\n",
	       wrong_over(s, o->threshold) ? '!' : ' ', s->correct, s->incorrect,
	       percent_wrong(percent, s, o), function_width, s->function, s->file, s->line, s->expression,
	       s->expect);
}

/* Sums the sites of each project macro, so that a hint hidden in a macro
   used in many places shows once as well as per expansion. */
static void print_macros(struct site **sites, size_t n, const struct report_options *o)
{
	const double gates[2] = { o->threshold, o->fail_over };
	char percent[PERCENT_SIZE];
	struct strmap seen = { 0 };
	char **names = NULL;
	size_t count = 0, capacity = 0, i, j;

	for (i = 0; i < n; i++) {
		void **slot;

		if (!sites[i]->macro)
			continue;
		slot = strmap_slot(&seen, sites[i]->macro);
		if (!*slot) {
			*slot = sites[i];
			*ARRAY_PUSH(names, count, capacity) = sites[i]->macro;
		}
	}
	if (count) {
		printf("\nby macro: correct incorrect %% sites macro\n");
		for (i = 0; i < count; i++) {
			unsigned long long c = 0, w = 0;
			unsigned expansions = 0;

			for (j = 0; j < n; j++)
				if (sites[j]->macro && strcmp(sites[j]->macro, names[i]) == 0) {
					c += sites[j]->correct;
					w += sites[j]->incorrect;
					expansions++;
				}
			printf("  %10llu %10llu %6s %5u  %s\n", c, w,
			       percent_text(percent, w, c + w, gates, 2), expansions, names[i]);
		}
	}
	free(names);
	strmap_free(&seen);
}

/* How many sites are in each state, and how many fail the --fail-over gate. */
struct tally {
	size_t ran, never, constant, unmatched, failing;
};

/* Counts the sites of each state into t and sets function_width. */
static void tally_sites(struct site **sites, size_t n, const struct report_options *o,
			struct tally *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		int width = (int)strlen(sites[i]->function);

		if (width > function_width)
			function_width = width > 32 ? 32 : width;
		if (sites[i]->reason)
			t->unmatched++;
		else if (total(sites[i]) == 0)
			t->never++;
		else if (is_constant(sites[i]))
			t->constant++;
		else
			t->ran++;
		if (!sites[i]->reason && !is_constant(sites[i]) && wrong_over(sites[i], o->fail_over))
			t->failing++;
	}
}

/* The sites without a ratio, never ran and not matched, in file order. */
static void print_uncounted(struct site **sites, size_t n, const struct tally *t)
{
	size_t i;

	if (t->never) {
		printf("\nnever ran:\n");
		for (i = 0; i < n; i++)
			if (!sites[i]->reason && total(sites[i]) == 0)
				printf("  %s %s:%u  %s (expect %ld)\n", sites[i]->function, sites[i]->file,
				       sites[i]->line, sites[i]->expression, sites[i]->expect);
	}
	if (t->unmatched) {
		printf("\nnot matched to a branch of the coverage build:\n");
		for (i = 0; i < n; i++)
			if (sites[i]->reason)
				printf("  %s %s:%u  %s: %s\n", sites[i]->function, sites[i]->file,
				       sites[i]->line, sites[i]->expression, sites[i]->reason);
	}
}

/* The text report of the n sites, most wrong first; sorts them by place. */
static void print_text(struct site **sites, size_t n, const struct report_options *o,
		       const struct tally *t, bool profile)
{
	size_t i;

	printf("%zu hint sites: %zu ran, %zu constant, %zu never ran", n, t->ran, t->constant,
	       t->never);
	if (profile)
		printf(", %zu not matched to a branch", t->unmatched);
	printf("\n");
	if (o->threshold >= 0)
		printf("! marks sites wrong more than %g%% of the time\n", o->threshold);
	printf("\n     correct  incorrect       %%  %-*s file:line  expression\n", function_width,
	       "function");
	for (i = 0; i < n; i++)
		if (!sites[i]->reason && total(sites[i]) > 0 && !is_constant(sites[i]))
			print_site_row(sites[i], o);
	if (t->constant) {
		printf("\nconstant at compile time:\n");
		for (i = 0; i < n; i++)
			if (!sites[i]->reason && is_constant(sites[i]))
				print_site_row(sites[i], o);
	}
	qsort(sites, n, sizeof(*sites), compare_site_location);
	print_uncounted(sites, n, t);
	print_macros(sites, n, o);
}

size_t report_print(struct site_table *table, const struct report_options *o)
{
	size_t n = table->count;
	struct site **sites = xcalloc(n, sizeof(*sites));
	struct tally t;

	if (n)
		memcpy(sites, table->sites, n * sizeof(*sites));
	tally_sites(sites, n, o, &t);
	qsort(sites, n, sizeof(*sites), compare_wrong);
	if (o->format == REPORT_JSON)
		print_json(sites, n, o, t.failing, table);
	else if (n == 0)
		printf("no __builtin_expect site in the input: the program has no hint, or its\n"
		       "likely/unlikely macros expand to nothing (as SQLite's do)\n");
	else
		print_text(sites, n, o, &t, table->profile);
	free(sites);
	return t.failing;
}
