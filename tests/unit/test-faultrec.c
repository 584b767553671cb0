/* Unit tests of lib/faultrec.c: the page faults of a command and of its
   descendants, with the mappings of their files, recorded without perf;
   the command's status handed back; none of our own faults. */
#include "faultrec.h"
#include "unit.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int main(void)
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
	char *why = NULL;

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

	faultrec_free(&rec);
	EXPECT_INT(0, (int)rec.count);
	return unit_end("test-faultrec");
}
