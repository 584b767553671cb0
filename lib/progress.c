#include "progress.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define LABEL_MAX 512
#define FIRST_DRAW_NS 500000000LL
#define REDRAW_NS 250000000LL

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_t thread;
static bool running, stopping, cleanup_registered;
static char label[LABEL_MAX];
static struct timespec started;
static pid_t owner; /* a child forked meanwhile has no such thread */

bool progress_enabled(void)
{
	const char *term = getenv("TERM"), *setting = getenv("LINKOPT_PROGRESS");

	if (setting && !strcmp(setting, "no"))
		return false;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(STDERR_FILENO) == 1;
}

static long long elapsed_ns(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000000000LL + (now.tv_nsec - since->tv_nsec);
}

static void write_all(const char *text, size_t n)
{
	ssize_t done;

	while (n > 0) {
		done = write(STDERR_FILENO, text, n);
		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0)
			return;
		text += done;
		n -= (size_t)done;
	}
}

static int terminal_columns(void)
{
	struct winsize size;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20)
		return size.ws_col;
	return 80;
}

/* The line in one write: a carriage return and erase-to-end, the label cut
   to the terminal's width (a wrapped line could not be erased), with
   control characters shown as '?' so that a file name cannot move the
   cursor. */
static void draw(const char *text, unsigned spin, long long ns)
{
	static const char spinner[] = "|/-\\";
	char line[LABEL_MAX + 64], tail[48];
	size_t room, n, i;
	int tail_length;

	tail_length = snprintf(tail, sizeof(tail), "  %c %lld s", spinner[spin % 4], ns / 1000000000LL);
	room = terminal_columns() - 1 > tail_length ? (size_t)(terminal_columns() - 1 - tail_length) : 0;
	n = strlen(text);
	if (n > room) {
		n = room;
		while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(line, "\r\033[K", 4);
	for (i = 0; i < n; i++)
		line[4 + i] = (unsigned char)text[i] < 32 || text[i] == 127 ? '?' : text[i];
	memcpy(line + 4 + n, tail, (size_t)tail_length);
	write_all(line, 4 + n + (size_t)tail_length);
}

static void *draw_loop(void *unused)
{
	char text[LABEL_MAX];
	unsigned spin = 0;
	bool shown = false;

	(void)unused;
	pthread_mutex_lock(&lock);
	for (;;) {
		struct timespec deadline;
		long long ns;

		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_nsec += REDRAW_NS;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		while (!stopping && pthread_cond_timedwait(&wake, &lock, &deadline) == EINTR)
			;
		if (stopping)
			break;
		ns = elapsed_ns(&started);
		if (ns < FIRST_DRAW_NS)
			continue;
		memcpy(text, label, sizeof(text));
		/* not while holding the lock: a stopped terminal (^S) must
		   not hold up progress_stop's caller longer than its write */
		pthread_mutex_unlock(&lock);
		draw(text, spin++, ns);
		shown = true;
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	if (shown)
		write_all("\r\033[K", 4);
	return NULL;
}

static void set_label(const char *fmt, va_list ap)
{
	char text[LABEL_MAX];

	vsnprintf(text, sizeof(text), fmt, ap);
	pthread_mutex_lock(&lock);
	memcpy(label, text, sizeof(label));
	pthread_mutex_unlock(&lock);
}

void progress_start(const char *fmt, ...)
{
	pthread_condattr_t attributes;
	sigset_t all, old;
	va_list ap;

	progress_stop();
	if (!progress_enabled())
		return;
	if (!cleanup_registered) {
		/* a program that exits in the middle of a step leaves no line */
		atexit(progress_stop);
		cleanup_registered = true;
	}
	va_start(ap, fmt);
	set_label(fmt, ap);
	va_end(ap);
	pthread_condattr_init(&attributes);
	pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
	pthread_cond_init(&wake, &attributes);
	pthread_condattr_destroy(&attributes);
	clock_gettime(CLOCK_MONOTONIC, &started);
	stopping = false;
	/* Signals stay with the caller's thread: its handlers pass them on
	   to the command it waits for. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	running = pthread_create(&thread, NULL, draw_loop, NULL) == 0;
	owner = getpid();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!running)
		pthread_cond_destroy(&wake);
}

void progress_label(const char *fmt, ...)
{
	va_list ap;

	if (!running)
		return;
	va_start(ap, fmt);
	set_label(fmt, ap);
	va_end(ap);
}

void progress_stop(void)
{
	if (!running)
		return;
	if (getpid() != owner) {
		running = false;
		return;
	}
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	pthread_cond_destroy(&wake);
	running = false;
}
