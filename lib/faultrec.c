/* faultrec: the page faults of a command, recorded with perf_event_open
   (see faultrec.h). */
#define _GNU_SOURCE
#include "faultrec.h"

#include "util.h"

#include <errno.h>
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
	bool stop;            /* set (atomically) once the events are disabled */
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
	if ((e == EACCES || e == EPERM) && known)
		return xasprintf("perf_event_open: %s (/proc/sys/kernel/perf_event_paranoid is %d; recording the "
				 "page faults of a command this user runs needs 2 or less, or root)",
				 strerror(e), level);
	if (e == ENOENT || e == ENOSYS)
		return xasprintf("perf_event_open: %s (this kernel has no perf events)", strerror(e));
	return xasprintf("perf_event_open: %s", strerror(e));
}

static void rings_close(struct ring *rings, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (rings[i].meta)
			munmap(rings[i].meta, rings[i].map_size);
		if (rings[i].fd >= 0)
			close(rings[i].fd);
	}
	free(rings);
}

/* Opens a disabled event and its ring buffer on each CPU online; a new
   array of *n, or NULL with *why. */
static struct ring *rings_open(size_t *n, char **why)
{
	struct perf_event_attr attr;
	size_t count, i, k;
	int *cpus = online_cpus(&count);
	struct ring *rings = xcalloc(count, sizeof(*rings));
	long page = sysconf(_SC_PAGESIZE);

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.exclude_hv = 1;
	attr.mmap = 1;
	attr.mmap_data = 1;
	attr.mmap2 = 1;
	attr.sample_id_all = 1;
	attr.watermark = 1;
	for (i = 0; i < count; i++)
		rings[i].fd = -1;
	*n = count;
	for (i = 0; i < count; i++) {
		attr.wakeup_watermark = (uint32_t)(ring_pages[0] * page / 4);
		rings[i].fd = event_open(&attr, cpus[i]);
		/* a user whom the kernel allows only user-space events
		   (perf_event_paranoid 2) records the faults of the command's
		   instructions, not those of the kernel on its behalf */
		if (rings[i].fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel) {
			attr.exclude_kernel = 1;
			rings[i].fd = event_open(&attr, cpus[i]);
		}
		if (rings[i].fd < 0) {
			*why = open_failure(errno);
			rings_close(rings, count);
			free(cpus);
			return NULL;
		}
		for (k = 0; k < sizeof(ring_pages) / sizeof(ring_pages[0]); k++) {
			void *map;

			rings[i].data_size = ring_pages[k] * (size_t)page;
			rings[i].map_size = rings[i].data_size + (size_t)page;
			map = mmap(NULL, rings[i].map_size, PROT_READ | PROT_WRITE, MAP_SHARED, rings[i].fd, 0);
			if (map != MAP_FAILED) {
				rings[i].meta = map;
				rings[i].data = (unsigned char *)map + page;
				break;
			}
		}
		if (!rings[i].meta) {
			*why = xasprintf("perf_event_open: cannot map a ring buffer of %zu KiB: %s",
					 rings[i].data_size / 1024, strerror(errno));
			rings_close(rings, count);
			free(cpus);
			return NULL;
		}
	}
	free(cpus);
	return rings;
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
	struct pollfd *fds = xcalloc(rc->n, sizeof(*fds));
	size_t i;
	bool stop;

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

static void events_ioctl(struct ring *rings, size_t n, unsigned long request)
{
	size_t i;

	for (i = 0; i < n; i++)
		ioctl(rings[i].fd, request, 0);
}

int faultrec_run(const struct proc_request *request, struct proc_result *result, int *status, struct faultrec *rec,
		 char **why)
{
	struct recorder rc = { .self = getpid(), .rec = rec };
	sigset_t all, old;
	pthread_t thread;
	int e;

	faultrec_free(rec);
	rc.rings = rings_open(&rc.n, why);
	if (!rc.rings)
		return -1;
	/* the thread takes no signal: proc's handlers stay the caller's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&thread, NULL, drain, &rc);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		*why = xasprintf("cannot start the thread that reads the page faults: %s", strerror(e));
		rings_close(rc.rings, rc.n);
		return -1;
	}
	events_ioctl(rc.rings, rc.n, PERF_EVENT_IOC_ENABLE);
	*status = proc_exec(request, result);
	events_ioctl(rc.rings, rc.n, PERF_EVENT_IOC_DISABLE);
	__atomic_store_n(&rc.stop, true, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	rings_close(rc.rings, rc.n);
	if (rc.lost) {
		*why = xasprintf("the kernel lost %llu records of the page faults (a ring buffer filled)",
				 (unsigned long long)rc.lost);
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
