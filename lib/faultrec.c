/* faultrec: the page faults of a command, recorded with perf_event_open
   (see faultrec.h). */
#define _GNU_SOURCE
#include "faultrec.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Data pages of a ring buffer, tried in turn: a user who is not root may
   lock perf_event_mlock_kb (516 KiB) per CPU. */
static const size_t ring_pages[] = { 128, 32, 8 };
/* faultrec_ring_pages's: the one size tried, or 0 */
static size_t ring_pages_only;

void faultrec_ring_pages(size_t pages)
{
	ring_pages_only = pages;
}

/* faultrec_before_lost_format's */
static bool without_lost_format;

void faultrec_before_lost_format(bool on)
{
	without_lost_format = on;
}

/* One CPU's event and its ring buffer. */
struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t data_size, map_size;
};

/* What the thread emptying the rings shares with the caller. */
struct recorder {
	struct ring *rings;
	size_t n;
	pid_t self;
	int start[2];         /* a pipe: a byte once the rings are open, none when
				 they could not be */
	bool stop;            /* set (atomically) once the events are disabled */
	bool lost_format;     /* the events count what they lose (Linux 6.0) */
	bool filled;          /* without lost_format: a ring was found (nearly) full */
	uint64_t lost;        /* records the kernel lost */
	struct faultrec *rec;
};

/* The CPUs online (/sys/devices/system/cpu/online: "0-3,6"), a new array
   of *n; every configured CPU when that cannot be read. */
static int *online_cpus(size_t *n)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char text[4096] = "";
	int *cpus = NULL;
	size_t capacity = 0;
	char *p, *end;

	*n = 0;
	if (f) {
		if (!fgets(text, sizeof(text), f))
			text[0] = '\0';
		fclose(f);
	}
	for (p = text; *p && *p != '\n';) {
		long first = strtol(p, &end, 10), last = first, c;

		if (end == p)
			break;
		p = end;
		if (*p == '-') {
			last = strtol(p + 1, &end, 10);
			p = end;
		}
		for (c = first; c <= last && c < 65536; c++)
			*ARRAY_PUSH(cpus, *n, capacity) = (int)c;
		if (*p == ',')
			p++;
	}
	if (!*n) {
		long c, count = sysconf(_SC_NPROCESSORS_CONF);

		for (c = 0; c < (count > 0 ? count : 1); c++)
			*ARRAY_PUSH(cpus, *n, capacity) = (int)c;
	}
	return cpus;
}

static int event_open(struct perf_event_attr *attr, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Why perf_event_open failed with errno e, a new message. */
static char *open_failure(int e)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 0;
	bool known = f && fscanf(f, "%d", &level) == 1;

	if (f)
		fclose(f);
	if ((e == EACCES || e == EPERM) && known && level > 2)
		return xasprintf("perf_event_open: %s (/proc/sys/kernel/perf_event_paranoid is %d; recording the "
				 "page faults of a command this user runs needs 2 or less, or root)",
				 strerror(e), level);
	if (e == ENOENT || e == ENOSYS)
		return xasprintf("perf_event_open: %s (this kernel has no perf events)", strerror(e));
	return xasprintf("perf_event_open: %s", strerror(e));
}

/* Opens a disabled event on each CPU of cpus (count) with a ring buffer
   of pages data pages each (the kernel wakes a reader when a quarter is
   written) into rings; *lost_format whether the events count the records
   they lose (PERF_FORMAT_LOST, Linux 6.0).  0; -1 with *why, and *mapped
   false when the events opened and a ring could not be mapped. */
static int rings_try(struct ring *rings, const int *cpus, size_t count, size_t pages, bool *lost_format,
		     bool *mapped, char **why)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);
	size_t i;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	attr.read_format = *lost_format ? PERF_FORMAT_LOST : 0;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.exclude_hv = 1;
	attr.mmap = 1;
	attr.mmap_data = 1;
	attr.mmap2 = 1;
	attr.comm = 1;
	attr.sample_id_all = 1;
	attr.watermark = 1;
	attr.wakeup_watermark = (uint32_t)(pages * (size_t)page / 4);
	*mapped = true;
	for (i = 0; i < count; i++) {
		void *map;

		rings[i].fd = event_open(&attr, cpus[i]);
		/* a kernel before 6.0 knows no PERF_FORMAT_LOST: the rings
		   are then watched for filling (ring_drain) */
		if (rings[i].fd < 0 && errno == EINVAL && attr.read_format) {
			attr.read_format = 0;
			*lost_format = false;
			rings[i].fd = event_open(&attr, cpus[i]);
		}
		/* a user whom the kernel allows only user-space events
		   (perf_event_paranoid 2) records the faults of the command's
		   instructions, not those of the kernel on its behalf */
		if (rings[i].fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel) {
			attr.exclude_kernel = 1;
			rings[i].fd = event_open(&attr, cpus[i]);
		}
		if (rings[i].fd < 0) {
			*why = open_failure(errno);
			return -1;
		}
		rings[i].data_size = pages * (size_t)page;
		rings[i].map_size = rings[i].data_size + (size_t)page;
		map = mmap(NULL, rings[i].map_size, PROT_READ | PROT_WRITE, MAP_SHARED, rings[i].fd, 0);
		if (map == MAP_FAILED) {
			*why = xasprintf("perf_event_open: cannot map a ring buffer of %zu KiB: %s (a user who is "
					 "not root may lock /proc/sys/kernel/perf_event_mlock_kb per CPU, and "
					 "ulimit -l more)",
					 rings[i].data_size / 1024, strerror(errno));
			*mapped = false;
			return -1;
		}
		rings[i].meta = map;
		rings[i].data = (unsigned char *)map + page;
	}
	return 0;
}

static void rings_close(struct ring *rings, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (rings[i].meta)
			munmap(rings[i].meta, rings[i].map_size);
		if (rings[i].fd >= 0)
			close(rings[i].fd);
		rings[i].meta = NULL;
		rings[i].fd = -1;
	}
}

/* Opens a disabled event and its ring buffer on each CPU online (cpus,
   count), the largest rings the kernel lets us map; a new array, or NULL
   with *why. */
static struct ring *rings_open(const int *cpus, size_t count, bool *lost_format, char **why)
{
	struct ring *rings = xcalloc(count, sizeof(*rings));
	const size_t *sizes = ring_pages_only ? &ring_pages_only : ring_pages;
	size_t i, k, tries = ring_pages_only ? 1 : sizeof(ring_pages) / sizeof(ring_pages[0]);
	bool mapped = false;

	*lost_format = !without_lost_format;
	for (k = 0; k < tries && !mapped; k++) {
		for (i = 0; i < count; i++)
			rings[i].fd = -1;
		if (k)
			free(*why);
		if (rings_try(rings, cpus, count, sizes[k], lost_format, &mapped, why) == 0)
			return rings;
		rings_close(rings, count);
	}
	free(rings);
	return NULL;
}

/* Copies n bytes at offset at of ring r's data (it wraps) to out. */
static void ring_copy(const struct ring *r, uint64_t at, void *out, size_t n)
{
	size_t from = (size_t)(at % r->data_size), first = n < r->data_size - from ? n : r->data_size - from;

	memcpy(out, r->data + from, first);
	memcpy((unsigned char *)out + first, r->data, n - first);
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Adds the record (size bytes at p, its header first) to the recorder. */
static void record_add(struct recorder *r, const unsigned char *p, size_t size)
{
	struct perf_event_header header;
	struct faultrec *rec = r->rec;
	size_t seq = rec->count;

	memcpy(&header, p, sizeof(header));
	/* a sample: ip; pid, tid; time; addr (PERF_SAMPLE_IP | TID | TIME |
	   ADDR, in the kernel's order) */
	if (header.type == PERF_RECORD_SAMPLE && size >= 8 + 32) {
		long pid = (long)u32_at(p + 16);

		if (pid == (long)r->self)
			return;
		*ARRAY_PUSH(rec->events, rec->count, rec->capacity) = (struct faultrec_event){
			.kind = FAULTREC_FAULT, .pid = pid, .time = u64_at(p + 24), .seq = seq,
			.address = u64_at(p + 32), .ip = u64_at(p + 8),
		};
		return;
	}
	/* pid, tid; addr, len, pgoff; device and inode (or build-id): 24;
	   prot, flags; the file's name, NUL-padded to 8 bytes; then the
	   sample_id: pid, tid; time */
	if (header.type == PERF_RECORD_MMAP2 && size >= 72 + 16) {
		long pid = (long)u32_at(p + 8);

		if (pid == (long)r->self)
			return;
		*ARRAY_PUSH(rec->events, rec->count, rec->capacity) = (struct faultrec_event){
			.kind = FAULTREC_MAP, .pid = pid, .time = u64_at(p + size - 8), .seq = seq,
			.start = u64_at(p + 16), .length = u64_at(p + 24), .offset = u64_at(p + 32),
			.path = xstrndup((const char *)p + 72, size - 72 - 16),
		};
		return;
	}
	/* pid, tid; the new name; then the sample_id: pid, tid; time.  An
	   exec: the pid's mappings are gone */
	if (header.type == PERF_RECORD_COMM && (header.misc & PERF_RECORD_MISC_COMM_EXEC) && size >= 16 + 16) {
		long pid = (long)u32_at(p + 8);

		if (pid != (long)r->self)
			*ARRAY_PUSH(rec->events, rec->count, rec->capacity) = (struct faultrec_event){
				.kind = FAULTREC_EXEC, .pid = pid, .time = u64_at(p + size - 8), .seq = seq,
			};
		return;
	}
	/* id, lost */
	if (header.type == PERF_RECORD_LOST && size >= 24)
		r->lost += u64_at(p + 16);
	/* lost */
	if (header.type == PERF_RECORD_LOST_SAMPLES && size >= 16)
		r->lost += u64_at(p + 8);
}

/* Reads every record the kernel wrote to ring r since the last call. */
static void ring_drain(struct recorder *rc, struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	unsigned char small[256], *big = NULL;

	/* the kernel drops a record that does not fit, and says so only in
	   a later one: without a count of its own (lost_format), a ring with
	   less room than the largest record (a mapping's path) counts as
	   lost */
	if (!rc->lost_format && head - tail + 4096 + 128 > r->data_size)
		rc->filled = true;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header header;
		unsigned char *p = small;

		ring_copy(r, tail, &header, sizeof(header));
		if (header.size < sizeof(header) || tail + header.size > head)
			break;
		if (header.size > sizeof(small))
			p = big = xrealloc(big, header.size);
		ring_copy(r, tail, p, header.size);
		record_add(rc, p, header.size);
		tail += header.size;
	}
	free(big);
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* The thread: empties the rings when the kernel says one is a quarter
   full, or every 20 ms, until stop; then once more. */
static void *drain(void *arg)
{
	struct recorder *rc = arg;
	struct pollfd *fds;
	size_t i;
	bool stop;
	char go;

	/* created before the events are opened (they would be its own too):
	   it waits until they are */
	while (read(rc->start[0], &go, 1) < 0 && errno == EINTR)
		;
	if (!__atomic_load_n(&rc->n, __ATOMIC_ACQUIRE))
		return NULL;
	fds = xcalloc(rc->n, sizeof(*fds));
	for (i = 0; i < rc->n; i++)
		fds[i] = (struct pollfd){ .fd = rc->rings[i].fd, .events = POLLIN };
	do {
		stop = __atomic_load_n(&rc->stop, __ATOMIC_ACQUIRE);
		for (i = 0; i < rc->n; i++)
			ring_drain(rc, &rc->rings[i]);
		if (!stop)
			poll(fds, rc->n, 20);
	} while (!stop);
	free(fds);
	return NULL;
}

/* Orders events by time; ties keep the order they were read in. */
static int by_time(const void *a, const void *b)
{
	const struct faultrec_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The ioctl request on every event; -1 when one failed. */
static int events_ioctl(struct ring *rings, size_t n, unsigned long request)
{
	size_t i;
	int status = 0;

	for (i = 0; i < n; i++)
		if (ioctl(rings[i].fd, request, 0) < 0)
			status = -1;
	return status;
}

/* The lost records the events counted (PERF_FORMAT_LOST: value, lost),
   their inherited copies' included; UINT64_MAX when an event cannot be
   read (what it lost is not known). */
static uint64_t events_lost(const struct ring *rings, size_t n)
{
	uint64_t total = 0, values[2];
	size_t i;

	for (i = 0; i < n; i++) {
		if (read(rings[i].fd, values, sizeof(values)) != (ssize_t)sizeof(values))
			return UINT64_MAX;
		total += values[1];
	}
	return total;
}

/* Whether a and b (n and m CPUs) are the same CPUs. */
static bool same_cpus(const int *a, size_t n, const int *b, size_t m)
{
	return n == m && !memcmp(a, b, n * sizeof(*a));
}

int faultrec_run(const struct proc_request *request, struct proc_result *result, int *status, struct faultrec *rec,
		 char **why)
{
	struct recorder rc = { .self = getpid(), .rec = rec, .start = { -1, -1 } };
	struct ring *rings;
	sigset_t all, old;
	pthread_t thread;
	size_t count, after_count;
	int *cpus, *after, e;
	bool failed = true, enabled = true;

	faultrec_free(rec);
	if (pipe2(rc.start, O_CLOEXEC) < 0) {
		*why = xasprintf("pipe failed: %s", strerror(errno));
		return -1;
	}
	/* the thread takes no signal: proc's handlers stay the caller's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&thread, NULL, drain, &rc);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		*why = xasprintf("cannot start the thread that reads the page faults: %s", strerror(e));
		close(rc.start[0]);
		close(rc.start[1]);
		return -1;
	}
	cpus = online_cpus(&count);
	rings = rings_open(cpus, count, &rc.lost_format, why);
	if (rings) {
		rc.rings = rings;
		__atomic_store_n(&rc.n, count, __ATOMIC_RELEASE);
	}
	/* rc.n stays 0 when the rings could not be opened: the thread ends */
	while (write(rc.start[1], "g", 1) < 0 && errno == EINTR)
		;
	if (!rings) {
		pthread_join(thread, NULL);
		close(rc.start[0]);
		close(rc.start[1]);
		free(cpus);
		return -1;
	}
	if (events_ioctl(rings, count, PERF_EVENT_IOC_ENABLE) < 0) {
		/* an event left disabled would record nothing: the command
		   is not run */
		*why = xasprintf("perf_event_open: cannot enable the events: %s", strerror(errno));
		memset(result, 0, sizeof(*result));
		*status = -EINVAL;
		enabled = false;
	} else {
		*status = proc_exec(request, result);
	}
	events_ioctl(rings, count, PERF_EVENT_IOC_DISABLE);
	__atomic_store_n(&rc.stop, true, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	close(rc.start[0]);
	close(rc.start[1]);
	if (rc.lost_format) {
		uint64_t lost = events_lost(rings, count);

		if (lost == UINT64_MAX)
			rc.filled = true;
		else
			rc.lost += lost;
	}
	rings_close(rings, count);
	free(rings);
	after = online_cpus(&after_count);
	if (!enabled)
		; /* *why says so */
	else if (!same_cpus(cpus, count, after, after_count))
		*why = xstrdup("the CPUs online changed while the command ran: the faults on a CPU brought online "
			       "were not recorded");
	else if (rc.lost)
		*why = xasprintf("the kernel lost %llu records of the page faults (a ring buffer filled)",
				 (unsigned long long)rc.lost);
	else if (rc.filled)
		*why = xstrdup("a ring buffer of the page faults filled, or its count of lost records could not be "
			       "read: records may have been lost");
	else
		failed = false;
	free(cpus);
	free(after);
	if (failed) {
		faultrec_free(rec);
		return -1;
	}
	if (rec->count)
		qsort(rec->events, rec->count, sizeof(*rec->events), by_time);
	return 0;
}

void faultrec_free(struct faultrec *rec)
{
	size_t i;

	for (i = 0; i < rec->count; i++)
		free(rec->events[i].path);
	free(rec->events);
	memset(rec, 0, sizeof(*rec));
}
