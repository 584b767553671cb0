/* pfstat: Drepper's section 7.1 measurements of a command as a tool:
   page faults (minor and major), the maximum resident set, user, system
   and wall time (wait4's rusage), and with --cold the pages of files a
   cold start reads and the block device's read requests; repeated runs
   give medians and spread, --compare alternates two commands, --pid
   samples a running process. */
#include "cli.h"
#include "input.h"
#include "loopdev.h"
#include "pagecache.h"
#include "proc.h"
#include "util.h"
#include "words.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const formats[] = { "text", "json", NULL };
static int format;
static unsigned long runs = 1, interval_ms = 100, duration_s, read_ahead_kb;
static bool set_read_ahead, show_output;
static const char *compare_command, *pid_text;
static struct cli_list cold_files;

static const char *set_runs(void *target, const char *value)
{
	unsigned long n;

	if (!cli_unsigned(value, &n) || n == 0 || n > 100000)
		return "is not a count from 1 to 100000";
	*(unsigned long *)target = n;
	return NULL;
}

static const char *set_kb(void *target, const char *value)
{
	unsigned long n;

	if (!cli_unsigned(value, &n) || n < 4 || n > (1ul << 20))
		return "is not a read-ahead in KiB from 4 to 1048576";
	*(unsigned long *)target = n;
	set_read_ahead = true;
	return NULL;
}

static const char *set_ms(void *target, const char *value)
{
	unsigned long n;

	if (!cli_unsigned(value, &n) || n == 0 || n > 3600000)
		return "is not a number of milliseconds from 1 to 3600000";
	*(unsigned long *)target = n;
	return NULL;
}

static const char *set_seconds(void *target, const char *value)
{
	unsigned long n;

	if (!cli_unsigned(value, &n) || n > 86400)
		return "is not a number of seconds up to 86400";
	*(unsigned long *)target = n;
	return NULL;
}

static const struct cli_option options[] = {
	{ "--runs", 'n', CLI_CALL, &runs, "N", "run N times; medians, minimum and maximum", .set = set_runs },
	{ "--cold", 0, CLI_LIST, &cold_files, "FILE",
	  "evict FILE (a regular file) from the page cache\n"
	  "before each run, proving it with mincore, and count its\n"
	  "pages read in and its device's read requests" },
	{ "--device-readahead", 0, CLI_CALL, &read_ahead_kb, "KB",
	  "put the --cold files on a loop device (an ext4 image) with\n"
	  "this read-ahead, bind-mounted over their paths (root)", .set = set_kb },
	{ "--compare", 0, CLI_STRING, &compare_command, "COMMAND",
	  "a second command, run alternately with the first and\n"
	  "like it: split into words as sh would, run directly,\n"
	  "never by a shell; ratios second/first" },
	{ "--pid", 0, CLI_STRING, &pid_text, "PID", "sample a running process's /proc/PID/stat instead" },
	{ "--interval", 0, CLI_CALL, &interval_ms, "MS", "--pid: milliseconds between samples (default 100)",
	  .set = set_ms },
	{ "--duration", 0, CLI_CALL, &duration_s, "S", "--pid: stop after S seconds (default: when it ends)",
	  .set = set_seconds },
	{ "--output", 0, CLI_FLAG, &show_output, 0, "let the command's output through (default: discarded)" },
	{ "--format", 0, CLI_CHOICE, &format, 0, "text (default) or json (format linkopt-pfstat)", formats },
	{ 0 }
};

static const struct cli_command command = {
	.name = "pfstat",
	.operands = "[--] COMMAND [ARG]...",
	.also = "--pid PID [--interval MS] [--duration S]",
	.description =
		"Runs COMMAND and reports its minor and major page faults, maximum resident\n"
		"set, user, system and wall time; with --cold FILE, FILE is evicted from the\n"
		"page cache before each run and the pages of it read in (mincore) and its\n"
		"device's read requests are reported too.  Every run reads the same\n"
		"standard input.  A run that fails fails pfstat.\n",
	.options = options,
	.footer = "Exit status: 0 measured, 1 a run failed or a measurement could not be\n"
		  "made, 2 usage error.\n",
	.flags = CLI_STOP_AT_OPERAND,
};

/* What one run measured. */
enum { MINFLT, MAJFLT, MAXRSS, UTIME, STIME, WALL, METRICS };
static const char *const metric_names[METRICS] = { "minor faults", "major faults", "max RSS (KiB)", "user (ms)",
						   "system (ms)", "wall (ms)" };
static const char *const metric_keys[METRICS] = { "minor_faults", "major_faults", "max_rss_kib", "user_ms",
						  "system_ms", "wall_ms" };

struct cold_sample {
	double pages, requests, sectors;
};

struct series {
	const char *label;         /* the command as shown */
	double *values[METRICS];   /* runs of each */
	struct cold_sample *cold;  /* runs x cold files */
	size_t count;
};

struct cold_file {
	const char *path;
	struct pagecache_device dev;
	bool have_dev;
	long read_ahead_kb;
	size_t total_pages;
};

static struct cold_file *colds;
static size_t ncold;

static double ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

static void prepare_cold(void)
{
	size_t i;

	colds = xcalloc(cold_files.count + 1, sizeof(*colds));
	ncold = cold_files.count;
	for (i = 0; i < ncold; i++) {
		struct cold_file *c = &colds[i];
		size_t resident;
		char *why = NULL;

		c->path = cold_files.items[i];
		if (pagecache_resident(c->path, &resident, &c->total_pages, &why) < 0)
			fatal("%s", why);
		c->have_dev = pagecache_device_of(c->path, &c->dev, &why) == 0;
		if (!c->have_dev) {
			warn("%s; its read requests are not counted", why);
			free(why);
			continue;
		}
		c->read_ahead_kb = pagecache_read_ahead_kb(&c->dev, &why);
		if (c->read_ahead_kb < 0) {
			warn("%s", why);
			free(why);
		} else if ((size_t)c->read_ahead_kb * 1024 >= c->total_pages * (size_t)sysconf(_SC_PAGESIZE)) {
			warn("%s: its device (%s) reads ahead %ld KiB, as much as the whole file (%zu KiB): a cold start "
			     "reads it whole whatever its layout; measure with --device-readahead=128 (the Linux "
			     "default) to see what layout does", c->path, c->dev.name, c->read_ahead_kb,
			     c->total_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024);
		}
	}
}

/* One run of argv; false when it failed. */
static bool run_once(char *const argv[], struct series *s)
{
	struct proc_request rq = { .argv = argv, .out = show_output ? PROC_INHERIT : PROC_DISCARD,
				   .err = show_output ? PROC_INHERIT : PROC_DISCARD };
	struct pagecache_reads before[64], after;
	struct proc_result r;
	size_t i, k = s->count;
	char *why;

	for (i = 0; i < ncold; i++) {
		if (pagecache_evict(colds[i].path, &why) < 0)
			fatal("%s", why);
		if (colds[i].have_dev && i < 64 && pagecache_device_reads(&colds[i].dev, &before[i], &why) < 0)
			fatal("%s", why);
	}
	if (input_start(&why) < 0)
		fatal("%s", why);
	proc_exec(&rq, &r);
	input_end();
	if (r.status != 0) {
		char *text = proc_failure(r.status, NULL);

		error("%s: %s", s->label, text);
		free(text);
		proc_result_free(&r);
		return false;
	}
	for (i = 0; i < METRICS; i++)
		s->values[i] = xrealloc(s->values[i], (k + 1) * sizeof(double));
	s->values[MINFLT][k] = r.usage.ru_minflt;
	s->values[MAJFLT][k] = r.usage.ru_majflt;
	s->values[MAXRSS][k] = r.usage.ru_maxrss;
	s->values[UTIME][k] = ms(r.usage.ru_utime);
	s->values[STIME][k] = ms(r.usage.ru_stime);
	s->values[WALL][k] = r.seconds * 1e3;
	s->cold = xrealloc(s->cold, (k + 1) * (ncold + 1) * sizeof(*s->cold));
	for (i = 0; i < ncold; i++) {
		struct cold_sample *c = &s->cold[k * ncold + i];
		size_t resident, total;

		memset(c, 0, sizeof(*c));
		if (pagecache_resident(colds[i].path, &resident, &total, &why) < 0)
			fatal("%s", why);
		c->pages = resident;
		if (colds[i].have_dev && i < 64 && pagecache_device_reads(&colds[i].dev, &after, &why) == 0) {
			c->requests = after.requests - before[i].requests;
			c->sectors = after.sectors - before[i].sectors;
		}
	}
	s->count++;
	proc_result_free(&r);
	return true;
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

static void cold_column(const struct series *s, size_t file, int field, double *out)
{
	size_t k;

	for (k = 0; k < s->count; k++) {
		const struct cold_sample *c = &s->cold[k * ncold + file];

		out[k] = field == 0 ? c->pages : field == 1 ? c->requests : c->sectors;
	}
}

/* The ratio of medians b/a: "1.02x", or why there is none ("n/a (0/0)",
   "n/a (12.0/0)"). */
static void print_ratio(double a, double b)
{
	if (a > 0)
		printf(" %7.2fx", b / a);
	else if (b == 0)
		printf("  n/a (0/0)");
	else
		printf("  n/a (%.1f/0)", b);
}

static void print_text(const struct series *s, size_t ns)
{
	static const char *const cold_names[3] = { "pages read", "read requests", "sectors read" };
	double a[3], b[3], *col = xmalloc((s[0].count + 1) * sizeof(double)),
	       *col2 = xmalloc((ns > 1 ? s[1].count + 1 : 1) * sizeof(double));
	size_t i, f;
	int field;

	printf("pfstat: %s", s[0].label);
	if (ns > 1)
		printf("\n  against: %s", s[1].label);
	printf(" (%zu run%s%s)\n", s[0].count, s[0].count == 1 ? "" : "s", ns > 1 ? " each, alternating" : "");
	if (input_description())
		printf("standard input: %s\n", input_description());
	if (ns > 1)
		printf("%-22s %12s %12s %12s %12s %8s\n", "", "median", "min", "max", "against", "ratio");
	else
		printf("%-22s %12s %12s %12s\n", "", "median", "min", "max");
	for (i = 0; i < METRICS; i++) {
		spread(s[0].values[i], s[0].count, a);
		printf("%-22s %12.1f %12.1f %12.1f", metric_names[i], a[0], a[1], a[2]);
		if (ns > 1) {
			spread(s[1].values[i], s[1].count, b);
			printf(" %12.1f", b[0]);
			print_ratio(a[0], b[0]);
		}
		putchar('\n');
	}
	for (f = 0; f < ncold; f++) {
		printf("cold: %s (%zu pages", colds[f].path, colds[f].total_pages);
		if (colds[f].have_dev)
			printf("; device %s, read-ahead %ld KiB", colds[f].dev.name, colds[f].read_ahead_kb);
		printf(")\n");
		for (field = 0; field < 3; field++) {
			if (field && !colds[f].have_dev)
				continue;
			cold_column(&s[0], f, field, col);
			spread(col, s[0].count, a);
			printf("  %-20s %12.1f %12.1f %12.1f", cold_names[field], a[0], a[1], a[2]);
			if (ns > 1) {
				cold_column(&s[1], f, field, col2);
				spread(col2, s[1].count, b);
				printf(" %12.1f", b[0]);
				print_ratio(a[0], b[0]);
			}
			putchar('\n');
		}
	}
	free(col);
	free(col2);
}

static void print_spread_json(const char *key, const double *v, size_t n)
{
	double a[3];

	spread(v, n, a);
	printf("\"%s\": {\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}", key, a[0], a[1], a[2]);
}

static void print_series_json(const struct series *s)
{
	static const char *const cold_keys[3] = { "pages_read", "read_requests", "sectors_read" };
	double *col = xmalloc((s->count + 1) * sizeof(double));
	size_t i, f;
	int field;

	printf("{\"command\": ");
	json_print_string(s->label);
	printf(", \"runs\": %zu", s->count);
	for (i = 0; i < METRICS; i++) {
		printf(", ");
		print_spread_json(metric_keys[i], s->values[i], s->count);
	}
	printf(", \"cold\": [");
	for (f = 0; f < ncold; f++) {
		printf("%s{\"file\": ", f ? ", " : "");
		json_print_string(colds[f].path);
		printf(", \"pages\": %zu, \"device\": ", colds[f].total_pages);
		if (colds[f].have_dev) {
			json_print_string(colds[f].dev.name);
			printf(", \"read_ahead_kb\": %ld", colds[f].read_ahead_kb);
		} else {
			printf("null");
		}
		for (field = 0; field < (colds[f].have_dev ? 3 : 1); field++) {
			cold_column(s, f, field, col);
			printf(", ");
			print_spread_json(cold_keys[field], col, s->count);
		}
		printf("}");
	}
	printf("]}");
	free(col);
}

static void print_json(const struct series *s, size_t ns)
{
	size_t i;

	printf("{");
	json_print_format("linkopt-pfstat", 1);
	printf("\"series\": [");
	for (i = 0; i < ns; i++) {
		printf("%s", i ? ", " : "");
		print_series_json(&s[i]);
	}
	printf("]}\n");
}

/* --pid: samples /proc/PID/stat until the process ends or --duration. */
static int sample_pid(void)
{
	unsigned long pid;
	char path[64];
	double start = proc_now();
	long page_kib = sysconf(_SC_PAGESIZE) / 1024;
	bool first = true;

	if (!cli_unsigned(pid_text, &pid) || pid == 0)
		cli_usage_error("--pid: '%s' is not a process id", pid_text);
	snprintf(path, sizeof(path), "/proc/%lu/stat", pid);
	if (format == 1) {
		printf("{");
		json_print_format("linkopt-pfstat-samples", 1);
		printf("\"pid\": %lu, \"samples\": [", pid);
	} else {
		printf("%10s %14s %14s %12s %12s %12s\n", "seconds", "minor faults", "major faults", "RSS (KiB)",
		       "user (ms)", "system (ms)");
	}
	for (;;) {
		FILE *f = fopen(path, "r");
		char buf[4096], *p;
		unsigned long long minflt, majflt, utime, stime;
		long rss;
		char state;
		bool ended = false;
		size_t n;
		double t = proc_now() - start;
		long tick = sysconf(_SC_CLK_TCK);
		struct timespec sleep_for = { interval_ms / 1000, (interval_ms % 1000) * 1000000L };

		if (!f) {
			if (first)
				fatal("%s: cannot open: %s", path, strerror(errno));
			break;
		}
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		/* the command name may hold blanks and parentheses: fields start after the last ')' */
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %llu %*u %llu %*u %llu %llu %*d %*d %*d %*d %*d %*d "
				 "%*u %*u %ld", &state, &minflt, &majflt, &utime, &stime, &rss) != 6)
			fatal("%s: not a process's stat line", path);
		/* a process that ended and was not reaped yet: its counts are final */
		if (state == 'Z' || state == 'X')
			ended = true;
		if (format == 1)
			printf("%s\n  {\"seconds\": %.3f, \"minor_faults\": %llu, \"major_faults\": %llu, \"rss_kib\": %ld, "
			       "\"user_ms\": %.0f, \"system_ms\": %.0f}", first ? "" : ",", t, minflt, majflt,
			       rss * page_kib, utime * 1e3 / tick, stime * 1e3 / tick);
		else
			printf("%10.3f %14llu %14llu %12ld %12.0f %12.0f\n", t, minflt, majflt, rss * page_kib,
			       utime * 1e3 / tick, stime * 1e3 / tick);
		fflush(stdout);
		first = false;
		if (ended || (duration_s && t >= duration_s))
			break;
		nanosleep(&sleep_for, NULL);
	}
	if (format == 1)
		printf("\n]}\n");
	stdout_close_or_die();
	return 0;
}

/* The --cold files, before anything is set up for them: each a regular
   file, none twice (on the loop device two copies would differ). */
static void check_cold_files(void)
{
	struct stat *seen = xcalloc(cold_files.count + 1, sizeof(*seen));
	size_t i, k;

	for (i = 0; i < cold_files.count; i++) {
		const char *path = cold_files.items[i];

		if (stat(path, &seen[i]) < 0)
			fatal("%s: cannot stat: %s", path, strerror(errno));
		if (!S_ISREG(seen[i].st_mode))
			fatal("%s: --cold needs a regular file, this is %s: only a regular file's pages are read from "
			      "a device into the page cache", path, pagecache_file_type(seen[i].st_mode));
		for (k = 0; k < i; k++)
			if (seen[k].st_dev == seen[i].st_dev && seen[k].st_ino == seen[i].st_ino)
				fatal("%s: the same file as %s, given to --cold twice", path, cold_files.items[k]);
	}
	free(seen);
}

int main(int argc, char **argv)
{
	char **operands, **compare_argv = NULL, *why;
	struct series s[2];
	struct loopdev loop;
	bool looped = false, ok = true;
	size_t r, ns;
	int count;

	progname = "pfstat";
	count = cli_parse(&command, argc, argv, &operands);
	if (pid_text) {
		if (count)
			cli_usage_error("--pid samples a running process: no COMMAND with it");
		return sample_pid();
	}
	if (count == 0)
		cli_usage_error("no COMMAND given");
	if (set_read_ahead && !cold_files.count)
		cli_usage_error("--device-readahead needs --cold FILE: the files to put on the loop device");
	if (compare_command && !(compare_argv = words_split(compare_command, &why)))
		cli_usage_error("--compare: %s", why);
	check_cold_files();
	proc_catch_interrupts();
	if (set_read_ahead) {
		if (loopdev_setup(&loop, cold_files.items, cold_files.count, read_ahead_kb, &why) < 0)
			fatal("%s", why);
		looped = true;
	}
	prepare_cold();
	if (input_prepare(runs > 1 || compare_argv, &why) < 0) {
		if (looped)
			loopdev_teardown(&loop);
		fatal("%s", why);
	}
	memset(s, 0, sizeof(s));
	s[0].label = words_quote(operands);
	if (compare_argv)
		s[1].label = words_quote(compare_argv);
	ns = compare_argv ? 2 : 1;
	/* alternate, the order turned every round, so that drift hits both alike */
	for (r = 0; r < runs && ok && !proc_interrupted(); r++) {
		bool second_first = ns == 2 && r % 2;

		if (second_first)
			ok = run_once(compare_argv, &s[1]);
		ok = ok && run_once(operands, &s[0]);
		if (ns == 2 && !second_first)
			ok = ok && run_once(compare_argv, &s[1]);
	}
	if (looped)
		loopdev_teardown(&loop);
	if (proc_interrupted())
		fatal("interrupted; nothing reported");
	if (!ok)
		return 1;
	if (format == 1)
		print_json(s, ns);
	else
		print_text(s, ns);
	stdout_close_or_die();
	return 0;
}
