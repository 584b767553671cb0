/* faultrec: every page fault of a command run natively, with the address
   it touched and the instruction that touched it, and every mapping its
   processes made of a file: what `perf record -e page-faults -c 1 -d`
   records, read from the kernel's ring buffers (perf_event_open(2)) by
   this process, without perf and without a perf.data file to convert.

   The events are the software event page-faults of this process, one
   per CPU, each sampling every fault, inherited by the command and its
   descendants when proc_exec forks it and enabled only while it runs; a
   thread empties the ring buffers as they fill.  Our own faults (this
   process's pid) are left out.  A record the kernel lost (a ring that
   filled) fails the run, as does a CPU brought online while it ran: a
   partial record is never handed back.  A fault comes once per page a process
   maps: the kernel's fault-around maps up to 64 KiB of a file's cached
   pages at once, so the faults are a lower bound of what ran. */
#ifndef LINKOPT_FAULTREC_H
#define LINKOPT_FAULTREC_H

#include "proc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum faultrec_kind {
	FAULTREC_FAULT,   /* a page fault */
	FAULTREC_MAP,     /* a mapping of a file (mmap, or exec's) */
	FAULTREC_EXEC,    /* an exec: the process's earlier mappings are gone */
};

/* One event, as the kernel recorded it. */
struct faultrec_event {
	enum faultrec_kind kind;
	long pid;
	uint64_t time;                   /* the kernel's perf clock, ns */
	size_t seq;                      /* the order it was read in (ties of time) */
	uint64_t address, ip;            /* a fault: the address touched, the
					    instruction's (equal when an
					    instruction was fetched) */
	uint64_t start, length, offset;  /* a mapping: its addresses and the
					    file offset at its start */
	char *path;                      /* a mapping: the file (new), as the
					    kernel names it (d_path) */
};

/* The events of one run, in the order they happened (by time). */
struct faultrec {
	struct faultrec_event *events;
	size_t count, capacity;
};

/* Runs request as proc_exec does (*result filled alike; its status in
   *status) with the page faults and file mappings of the command and its
   descendants recorded into *rec (emptied first).  0; -1 with *why (new)
   when they could not be recorded: the events cannot be opened here (the
   message names /proc/sys/kernel/perf_event_paranoid when that is why;
   the command is then not run), or they are not all there (the kernel
   lost some, or a CPU came online: the command ran, *status is its
   status, and *rec is emptied). */
int faultrec_run(const struct proc_request *request, struct proc_result *result, int *status, struct faultrec *rec,
		 char **why);

/* For tests: the data pages of each ring buffer (a power of two), the
   only size tried; 0 (the default): the largest of 512, 128 and 32 KiB
   the kernel lets us map. */
void faultrec_ring_pages(size_t pages);

/* For tests: on, the events are opened as on a kernel before 6.0, which
   counts no lost records (PERF_FORMAT_LOST): a ring found nearly full
   fails the run instead; off (the default), as the kernel allows. */
void faultrec_before_lost_format(bool on);

/* Frees what rec holds and empties it. */
void faultrec_free(struct faultrec *rec);

#endif
