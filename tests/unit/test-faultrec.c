/* Unit tests of lib/faultrec.c: the page faults of a command and of its
   descendants, with the mappings of their files, recorded without perf;
   the command's status handed back; none of our own faults. */
#define _GNU_SOURCE
#include "faultrec.h"
#include "unit.h"
#include "util.h"

#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Pages the toucher (this program, --touch) faults in, one each. */
#define TOUCHED 8192

/* --touch [fifo]: maps TOUCHED pages, writes a byte in each (a fault
   each: no huge pages), prints where they are; with fifo, as root, first
   takes its CPU from every thread that is not real-time until it ends
   (a few ms). */
static int touch(bool fifo)
{
	size_t k, size = (size_t)TOUCHED * 4096;
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sched_param param = { .sched_priority = 1 };

	if (p == MAP_FAILED)
		return 1;
	if (fifo)
		sched_setscheduler(0, SCHED_FIFO, &param);
	madvise(p, size, MADV_NOHUGEPAGE);
	for (k = 0; k < TOUCHED; k++)
		p[k * 4096] = 1;
	printf("%lx\n", (unsigned long)(uintptr_t)p);
	return 0;
}

/* The faults of rec in the toucher's pages (its output out names where). */
static long touched(const struct faultrec *rec, const char *out)
{
	unsigned long start = strtoul(out ? out : "0", NULL, 16);
	long n = 0;
	size_t e;

	for (e = 0; e < rec->count && start; e++)
		if (rec->events[e].kind == FAULTREC_FAULT && rec->events[e].address >= start &&
		    rec->events[e].address < start + (unsigned long)TOUCHED * 4096)
			n++;
	return n;
}

/* Whether rec holds an exec before a mapping of path by the same process. */
static bool exec_before_map(const struct faultrec *rec, const char *path)
{
	size_t e, m;

	for (e = 0; e < rec->count; e++)
		for (m = e + 1; m < rec->count && rec->events[e].kind == FAULTREC_EXEC; m++)
			if (rec->events[m].kind == FAULTREC_MAP && rec->events[m].pid == rec->events[e].pid &&
			    !strcmp(rec->events[m].path, path))
				return true;
	return false;
}

/* Whether rec holds a mapping of path by a process other than ours with
   an instruction fetched in it (a fault whose address is its ip), and a
   fault of data (address and ip apart) in any of the command's
   mappings; *in_order whether the events come by time. */
static void look(const struct faultrec *rec, const char *path, bool *mapped, bool *fetched, bool *data, bool *ours,
		 bool *in_order)
{
	size_t e, m;

	*mapped = *fetched = *data = *ours = false;
	*in_order = true;
	for (e = 0; e < rec->count; e++) {
		const struct faultrec_event *ev = &rec->events[e];

		if (ev->pid == (long)getpid())
			*ours = true;
		if (e && ev->time < rec->events[e - 1].time)
			*in_order = false;
		if (ev->kind == FAULTREC_MAP) {
			*mapped = *mapped || !strcmp(ev->path, path);
			continue;
		}
		for (m = 0; m < e; m++) {
			const struct faultrec_event *map = &rec->events[m];

			if (map->kind != FAULTREC_MAP || map->pid != ev->pid || ev->address < map->start ||
			    ev->address >= map->start + map->length)
				continue;
			if (ev->address == ev->ip && !strcmp(map->path, path))
				*fetched = true;
			if (ev->address != ev->ip)
				*data = true;
		}
	}
}

/* Case name: the toucher's run with rings of pages data pages, the
   toucher and the thread that empties the rings on one CPU (as root the
   toucher keeps it until it ends): the run fails, saying that records
   were lost or a ring filled, and hands back none; as not root the
   thread may keep up, and then every fault is there. */
static void ring_filled(const char *name, struct proc_request *request, char **toucher, struct faultrec *rec,
			size_t pages)
{
	struct proc_result result;
	cpu_set_t one, all_cpus;
	char *why = NULL;
	int status = -1;

	unit_case(name);
	faultrec_ring_pages(pages);
	toucher[2] = geteuid() == 0 ? "fifo" : NULL;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() > 0 ? sched_getcpu() : 0, &one);
	sched_getaffinity(0, sizeof(all_cpus), &all_cpus);
	sched_setaffinity(0, sizeof(one), &one);
	if (faultrec_run(request, &result, &status, rec, &why) == 0) {
		EXPECT_INT(TOUCHED, (int)touched(rec, result.out));
		/* as root nothing empties the ring while the toucher runs */
		EXPECT_INT(0, geteuid() == 0);
	} else {
		EXPECT_INT(1, strstr(why, "lost") != NULL || strstr(why, "filled") != NULL);
		EXPECT_INT(0, (int)rec->count);
		fprintf(stderr, "test-faultrec: %s: %s\n", name, why);
		free(why);
	}
	EXPECT_INT(0, status);
	proc_result_free(&result);
	faultrec_ring_pages(0);
	sched_setaffinity(0, sizeof(all_cpus), &all_cpus);
}

int main(int argc, char **argv)
{
	char truth[PATH_MAX];
	char *alone[] = { "/bin/true", NULL };
	/* true runs in a child of sh: the events are inherited */
	char *child[] = { "sh", "-c", "/bin/true; exit 3", NULL };
	struct proc_request request = { .argv = alone, .stdin_null = true, .out = PROC_DISCARD, .err = PROC_DISCARD };
	struct proc_result result;
	struct faultrec rec = { 0 };
	bool mapped, fetched, data, ours, in_order;
	int status = -1;
	char *why = NULL, self[PATH_MAX];
	char *toucher[] = { self, "--touch", NULL, NULL };
	ssize_t got;

	if (argc > 1 && !strcmp(argv[1], "--touch"))
		return touch(argc > 2);
	got = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (got <= 0)
		return UNIT_SKIP;
	self[got] = '\0';

	if (!realpath("/bin/true", truth)) {
		fprintf(stderr, "test-faultrec: /bin/true: %s\n", strerror(errno));
		return UNIT_SKIP;
	}
	if (faultrec_run(&request, &result, &status, &rec, &why) < 0) {
		/* the kernel does not let this user record: nothing to test */
		fprintf(stderr, "test-faultrec: %s\n", why);
		return UNIT_SKIP;
	}

	unit_case("a command");
	EXPECT_INT(0, status);
	look(&rec, truth, &mapped, &fetched, &data, &ours, &in_order);
	EXPECT_INT(1, mapped);
	EXPECT_INT(1, fetched);
	EXPECT_INT(1, data);
	EXPECT_INT(0, ours);
	EXPECT_INT(1, in_order);
	EXPECT_INT(1, exec_before_map(&rec, truth));

	unit_case("a command's child, and its status");
	request.argv = child;
	EXPECT_INT(0, faultrec_run(&request, &result, &status, &rec, &why));
	EXPECT_INT(3, status);
	look(&rec, truth, &mapped, &fetched, &data, &ours, &in_order);
	EXPECT_INT(1, mapped);
	EXPECT_INT(1, fetched);
	EXPECT_INT(0, ours);
	EXPECT_INT(1, in_order);

	unit_case("a command that cannot start");
	request.argv = (char *[]){ "/nonexistent/linkopt-test", NULL };
	EXPECT_INT(0, faultrec_run(&request, &result, &status, &rec, &why));
	EXPECT_INT(1, status < 0);
	look(&rec, truth, &mapped, &fetched, &data, &ours, &in_order);
	EXPECT_INT(0, mapped);

	/* every fault, or a failure: 8192 faults fill 320 KiB of a ring of
	   512 KiB, which cannot fill */
	unit_case("every fault of a run");
	request.argv = toucher;
	request.out = PROC_CAPTURE;
	EXPECT_INT(0, faultrec_run(&request, &result, &status, &rec, &why));
	EXPECT_INT(0, status);
	EXPECT_INT(TOUCHED, (int)touched(&rec, result.out));
	proc_result_free(&result);

	/* a ring of one page, 4 KiB, fills: the kernel loses records, and
	   the run fails rather than hand back part of them */
	ring_filled("a ring that filled", &request, toucher, &rec, 1);

	/* as on a kernel before 6.0, which counts no lost records: every
	   fault still, and a ring found nearly full (two pages: one holds
	   less than the largest record) fails the run */
	faultrec_before_lost_format(true);
	unit_case("every fault of a run, before Linux 6.0");
	toucher[2] = NULL;
	EXPECT_INT(0, faultrec_run(&request, &result, &status, &rec, &why));
	EXPECT_INT(0, status);
	EXPECT_INT(TOUCHED, (int)touched(&rec, result.out));
	proc_result_free(&result);
	ring_filled("a ring that filled, before Linux 6.0", &request, toucher, &rec, 2);
	faultrec_before_lost_format(false);

	faultrec_free(&rec);
	EXPECT_INT(0, (int)rec.count);
	return unit_end("test-faultrec");
}
