/* pfstat: Drepper's section 7.1 measurements of a command as a tool:
   page faults (minor and major), the maximum resident set, user, system
   and wall time (wait4's rusage), and with --cold the pages of files a
   cold start reads and the block device's read requests; repeated runs
   give medians and spread, --compare alternates two commands, --pid
   samples a running process. */
#include "cli.h"
#include "cold.h"
#include "input.h"
#include "loopdev.h"
#include "pagecache.h"
#include "proc.h"
#include "report.h"
#include "util.h"
#include "words.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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
	  "pages read in and its device's read requests (when\n"
	  "they can be FILE's)" },
	{ "--read-ahead-kb", 0, CLI_CALL, &read_ahead_kb, "N",
	  "put the --cold files on a loop device (an ext4 image)\n"
	  "with N KiB of read-ahead, mounted read-only over their\n"
	  "paths in a mount namespace of pfstat's own (root)", .set = set_kb },
	{ "--device-readahead", 0, CLI_CALL, &read_ahead_kb, "KB", NULL, .set = set_kb }, /* the old spelling */
	{ "--compare", 0, CLI_STRING, &compare_command, "COMMAND",
	  "a second command, run alternately with the first and\n"
	  "like it: split into words as sh would, run directly,\n"
	  "never by a shell; ratios second/first" },
	{ "--pid", 0, CLI_STRING, &pid_text, "PID", "sample a running process's /proc/PID/stat instead" },
	{ "--interval", 0, CLI_CALL, &interval_ms, "MS", "--pid: milliseconds between samples (default 100)",
	  .set = set_ms },
	{ "--duration", 0, CLI_CALL, &duration_s, "S", "--pid: stop after S seconds (default: when it ends)",
	  .set = set_seconds },
	{ "--show-output", 0, CLI_FLAG, &show_output, 0, "let the command's output through (default: discarded)" },
	{ "--output", 0, CLI_FLAG, &show_output, 0, NULL }, /* the old spelling */
	{ "--format", 0, CLI_CHOICE, &format, 0, "text (default) or json (format linkopt-pfstat)", formats },
	{ 0 }
};

static const struct cli_command command = {
	.name = "pfstat",
	.operands = "[--] COMMAND [ARG]...",
	.also = "--pid PID [--interval MS] [--duration S]",
	.description =
		"Runs COMMAND and reports its minor and major page faults, maximum resident\n"
		"set, user, system and wall time, with every run's figures; with --cold FILE,\n"
		"FILE is evicted from the page cache before each run and the pages of it read\n"
		"in (mincore) and its device's read requests are reported too.  Every run\n"
		"reads the same standard input.  A run that fails fails pfstat.\n",
	.options = options,
	.footer = "Exit status: 0 measured, 1 a run failed or a measurement could not be\n"
		  "made, 2 usage error.\n",
	.flags = CLI_STOP_AT_OPERAND,
};

static struct cold_set cold;
static struct loopdev loop;
static bool looped, stdin_on_copy;

/* --device-readahead: each --cold file itself, under its copy's mount
   (opened before it, reached as /proc/self/fd/N), and its pages in the
   page cache before a run; -1: not watched. */
static int *original_fd;
static size_t *original_before;
static bool *original_watched;
static struct timespec *original_changed;

/* Keeps a descriptor of each --cold file before its copy is mounted over
   it, so that a run that reads the file itself (a hard link, another path
   to it) can be told from one that reads the copy. */
static void originals_open(void)
{
	size_t i;

	original_fd = xcalloc(cold_files.count + 1, sizeof(*original_fd));
	original_before = xcalloc(cold_files.count + 1, sizeof(*original_before));
	original_watched = xcalloc(cold_files.count + 1, sizeof(*original_watched));
	original_changed = xcalloc(cold_files.count + 1, sizeof(*original_changed));
	for (i = 0; i < cold_files.count; i++)
		original_fd[i] = open(cold_files.items[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

/* Before a run: each file itself out of the page cache, as far as it can
   be (a file mapped elsewhere is not watched), and its pages counted. */
static void originals_before(void)
{
	char path[64], *why;
	size_t i, total;
	struct stat st;

	for (i = 0; i < cold_files.count; i++) {
		original_watched[i] = false;
		if (original_fd[i] < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", original_fd[i]);
		if (pagecache_evict(path, &why) < 0 ||
		    pagecache_resident(path, &original_before[i], &total, &why) < 0) {
			free(why);
			continue;
		}
		if (fstat(original_fd[i], &st) < 0)
			continue;
		original_changed[i] = st.st_ctim;
		original_watched[i] = true;
	}
}

/* After a run: false (said) when pages of a file itself came in: the run
   read it, not its copy, and the copy's figures are not the run's. */
static bool originals_after(const struct series *s)
{
	char path[64], *why;
	size_t i, now, total;
	struct stat st;

	for (i = 0; i < cold_files.count; i++) {
		if (!original_watched[i])
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", original_fd[i]);
		if (pagecache_resident(path, &now, &total, &why) < 0) {
			free(why);
			continue;
		}
		/* written meanwhile by a process outside (its pages cached
		   by the write): not a read by the run */
		if (fstat(original_fd[i], &st) < 0 || st.st_ctim.tv_sec != original_changed[i].tv_sec ||
		    st.st_ctim.tv_nsec != original_changed[i].tv_nsec)
			continue;
		if (now > original_before[i]) {
			error("%s: %s read %zu pages of the file itself, not of its copy on the loop device (through "
			      "a hard link or another path to it, or a descriptor opened before pfstat; or another "
			      "process read it meanwhile): the copy's "
			      "pages read and the device's counts would not be the run's; give --cold the path the "
			      "command reads", cold_files.items[i], s->label, now - original_before[i]);
			return false;
		}
	}
	return true;
}

/* Undoes the loop device; descriptor 0 let go of a copy first (an open
   file keeps its file system busy). */
static int teardown(char **why)
{
	if (stdin_on_copy) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			if (null != STDIN_FILENO)
				close(null);
		}
	}
	return loopdev_teardown(&loop, why);
}

static double ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

/* Ends what a run left behind: in the loop device's namespace, any process
   (its files would keep the device, and a later run would not start alike);
   elsewhere it is only said, once. */
static void after_run(const struct series *s, long group)
{
	static bool told;
	char *strays;

	if (looped) {
		if ((strays = loopdev_end_strays(&loop)) && !proc_interrupted()) {
			warn("%s left %s running: ended (SIGTERM, then SIGKILL), so that every run starts alike and "
			     "the loop device can go", s->label, strays);
		}
		free(strays);
	} else if (group > 0 && !told && (kill(-group, 0) == 0 || errno == EPERM)) {
		warn("%s left processes running (its process group %ld): later runs may not start alike", s->label,
		     group);
		told = true;
	}
}

/* The maximum resident set (KiB) a run gets from pfstat alone: a child
   forked as a run's is, whose exec fails.  wait4 gives a process the
   highest resident set it ever had, and a forked child starts with the
   pages of pfstat it shares, so a run's own below this is not seen. */
static double rss_floor(void)
{
	char *argv[] = { "/proc/self/pfstat-probe-that-does-not-exist", NULL };
	struct proc_request rq = { .argv = argv, .out = PROC_DISCARD, .err = PROC_DISCARD };
	struct proc_result r;

	proc_exec(&rq, &r);
	proc_result_free(&r);
	return r.usage.ru_maxrss;
}

/* One run of s's command, the place among all runs order; false when it
   failed or could not be measured (said). */
static bool run_once(struct series *s, size_t order)
{
	struct proc_request rq = { .argv = s->argv, .out = show_output ? PROC_INHERIT : PROC_DISCARD,
				   .err = show_output ? PROC_INHERIT : PROC_DISCARD };
	struct proc_result r;
	size_t k = s->count;
	char *why;

	s->floor[k] = rss_floor();
	if (cold.nfiles && cold_before_run(&cold, &why) < 0) {
		error("%s", why);
		free(why);
		return false;
	}
	if (looped)
		originals_before();
	if (input_start(&why) < 0) {
		error("%s", why);
		free(why);
		return false;
	}
	proc_exec(&rq, &r);
	input_end();
	if (r.status != 0) {
		char *text = proc_failure(r.status, NULL);

		if (!proc_interrupted())
			error("%s: %s", s->label, text);
		free(text);
		proc_result_free(&r);
		after_run(s, r.pid);
		return false;
	}
	s->values[MINFLT][k] = r.usage.ru_minflt;
	s->values[MAJFLT][k] = r.usage.ru_majflt;
	s->values[MAXRSS][k] = r.usage.ru_maxrss;
	s->values[UTIME][k] = ms(r.usage.ru_utime);
	s->values[STIME][k] = ms(r.usage.ru_stime);
	s->values[WALL][k] = r.seconds * 1e3;
	s->order[k] = order;
	proc_result_free(&r);
	if (cold.nfiles &&
	    cold_after_run(&cold, &s->pages[k * cold.nfiles], &s->reads[k * cold.ndevices], &why) < 0) {
		error("%s", why);
		free(why);
		return false;
	}
	after_run(s, r.pid);
	if (looped && !originals_after(s))
		return false;
	s->count++;
	return true;
}

/* --pid: samples /proc/PID/stat until the process ends or --duration. */
static int sample_pid(void)
{
	unsigned long pid;
	char path[64];
	double start = proc_now();
	long page_kib = sysconf(_SC_PAGESIZE) / 1024;
	unsigned long long first_started = 0;
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
		unsigned long long minflt, majflt, utime, stime, started;
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
				 "%llu %*u %ld", &state, &minflt, &majflt, &utime, &stime, &started, &rss) != 7)
			fatal("%s: not a process's stat line", path);
		/* another process that took the pid of the one that ended */
		if (first)
			first_started = started;
		else if (started != first_started)
			break;
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
static struct stat *check_cold_files(void)
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
	return seen;
}

int main(int argc, char **argv)
{
	char **operands, **compare_argv = NULL, *why;
	struct stat *cold_stat;
	int json_out = -1;
	struct series s[2];
	size_t r, ns, order = 0;
	bool ok = true;
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
		cli_usage_error("--read-ahead-kb needs --cold FILE: the files to put on the loop device");
	if (compare_command && !(compare_argv = words_split(compare_command, &why)))
		cli_usage_error("--compare: %s", why);
	cold_stat = check_cold_files();
	proc_catch_interrupts();
	if (set_read_ahead) {
		/* before the namespace: the watchdog stays outside it */
		if (proc_watch_children(&why) < 0) {
			warn("%s; a command still running when pfstat is killed will keep the loop device", why);
			free(why);
		}
		originals_open();
		if (loopdev_setup(&loop, cold_files.items, cold_files.count, read_ahead_kb, &why) < 0)
			fatal("%s", why);
		looped = true;
		/* a --cold file given as standard input was opened before its
		   copy was mounted: the runs would read the file itself, and
		   its pages read would be the copy's, none */
		for (r = 0; r < cold_files.count; r++) {
			int reopened = input_reopen(&cold_stat[r], cold_files.items[r], &why);

			if (reopened < 0)
				goto failed;
			if (reopened) {
				stdin_on_copy = true;
				break;
			}
		}
	}
	if (cold_prepare(&cold, cold_files.items, cold_files.count, set_read_ahead, &why) < 0)
		goto failed;
	/* the loop device reads ahead what was asked, or its figures are
	   not those of --read-ahead-kb */
	for (r = 0; set_read_ahead && r < cold.ndevices; r++)
		if (cold.devices[r].read_ahead_kb >= 0 && (unsigned long)cold.devices[r].read_ahead_kb != read_ahead_kb) {
			why = xasprintf("%s: reads ahead %ld KiB, not the %lu of --read-ahead-kb: something set it after "
					"pfstat did", cold.devices[r].dev.name, cold.devices[r].read_ahead_kb, read_ahead_kb);
			goto failed;
		}
	ns = compare_argv ? 2 : 1;
	/* the JSON alone on standard output, so that it parses: the
	   command's output let through goes to standard error */
	if (show_output && format == 1) {
		fflush(stdout);
		if ((json_out = dup(STDOUT_FILENO)) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			why = xasprintf("standard output: cannot keep it for the JSON: %s", strerror(errno));
			goto failed;
		}
	}
	if (input_prepare(runs > 1 || ns > 1, &why) < 0)
		goto failed;
	series_init(&s[0], words_quote(operands), operands, runs, &cold);
	if (ns > 1)
		series_init(&s[1], words_quote(compare_argv), compare_argv, runs, &cold);
	/* alternate, the order turned every round, so that drift hits both alike */
	for (r = 0; r < runs && ok && !proc_interrupted(); r++) {
		bool second_first = ns == 2 && r % 2;

		if (second_first)
			ok = run_once(&s[1], ++order);
		ok = ok && run_once(&s[0], ++order);
		if (ns == 2 && !second_first)
			ok = ok && run_once(&s[1], ++order);
	}
	if (looped && teardown(&why) < 0) {
		error("%s", why);
		free(why);
		ok = false;
	}
	if (json_out >= 0 && dup2(json_out, STDOUT_FILENO) < 0)
		fatal("standard output: cannot take it back for the JSON: %s", strerror(errno));
	if (proc_interrupted())
		fatal("interrupted; nothing reported");
	if (!ok)
		return 1;
	if (format == 1)
		report_json(s, ns, &cold, input_description());
	else
		report_text(s, ns, &cold, input_description());
	stdout_close_or_die();
	return 0;
failed:
	error("%s", why);
	free(why);
	if (looped && teardown(&why) < 0) {
		error("%s", why);
		free(why);
	}
	return 1;
}
