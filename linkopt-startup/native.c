/* native: the code a workload runs natively that its traces under valgrind
   miss.  Valgrind is not the CPU: it computes long double in 64 bits, so a
   program that tests the x87's precision at start-up (SQLite does) takes
   another path natively; CPUID dispatch picks other routines.  A layout
   made from the traces alone leaves that code where the plain link had it,
   and a cold start reads a read-ahead window more for it than the model
   says.  The page faults find it: the workload run natively, every page
   fault recorded with its address (lib/faultrec.h); a fault of an
   instruction (address = ip) in an output names a function that ran.  A fault comes once per page and
   fault-around maps 64 KiB at a time, so what is found is a lower bound;
   the search folds it in and checks the chosen layout again. */
#define _GNU_SOURCE
#include "startup.h"

#include "coldstart.h"
#include "elfobj.h"
#include "faultrec.h"
#include "output.h"
#include "proc.h"
#include "record.h"
#include "trace.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static bool among(const struct native_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->count; i++)
		if (!strcmp(set->names[i], name))
			return true;
	return false;
}

void native_add(struct native_set *set, const char *name)
{
	if (!among(set, name))
		*ARRAY_PUSH(set->names, set->count, set->capacity) = xstrdup(name);
}

void native_free(struct native_set *set)
{
	size_t i;

	for (i = 0; i < set->count; i++)
		free(set->names[i]);
	free(set->names);
	memset(set, 0, sizeof(*set));
}

/* The functions the traces of run entered (F records), by name. */
static void traced_names(const struct startup_run *run, struct native_set *traced)
{
	size_t t, k;

	for (t = 0; t < run->files.gl_pathc; t++) {
		const struct trace *tr = &run->traces[t];

		for (k = 0; k < tr->event_count; k++)
			if (tr->events[k].kind == TRACE_FUNCTION && tr->events[k].symbol && *tr->events[k].symbol)
				native_add(traced, tr->events[k].symbol);
	}
}

/* The first 64 KiB of the file at path as a string (new), NULL when it
   cannot be read. */
static char *text_of(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t got;

	if (!f)
		return NULL;
	text = xmalloc(65536);
	got = fread(text, 1, 65535, f);
	text[got] = '\0';
	fclose(f);
	return text;
}

/* The file at path opened as a linked ELF file (its bytes mapped at
   *data, *size of them); -1 with *why. */
static int open_linked(const char *path, struct elf_object *elf, void **data, size_t *size, char **why)
{
	if (map_file(path, data, size, why) < 0)
		return -1;
	if (elfobj_open_linked(elf, path, *data, *size, why) < 0) {
		munmap(*data, *size);
		return -1;
	}
	return 0;
}

/* A mapping of an output's file in a process of the native run. */
struct mapping {
	long pid;
	uint64_t start, end, offset;
	size_t output;
};

/* A page fault in an output's file: the virtual address of its link,
   and whether an instruction faulted there (the fault's address is its
   ip). */
struct fault {
	uint64_t address;
	bool code;
};

struct faults {
	struct fault *items;
	size_t count, capacity;
};

/* Runs workload line natively with the files now in place of the n
   outputs, and appends to faults[i] each fault in a mapping of output
   i's file, as an address of its link (from the mappings the kernel
   recorded and the file's program headers: no symbol names but the
   file's own).  -1 with *why (new) when the workload fails, -2 when its
   faults could not be recorded (twice: a ring buffer that filled once
   may not fill again). */
static int native_faults(const struct startup_job *job, const struct startup_output *outputs, size_t n,
			 const char *line, struct faults *faults, char **why)
{
	char *line_copy = xstrdup(line), *err_log = record_path(job->dir, outputs[0].name, "search.native.err");
	char *argv[] = { "sh", "-c", line_copy, NULL };
	/* the workload's streams as in every other run of it
	   (run_workload_streams): its stderr into a file */
	struct proc_request request = { .argv = argv, .out = PROC_DISCARD, .err = PROC_LOG, .log = err_log };
	struct proc_result result;
	struct faultrec rec = { 0 };
	struct mapping *maps = NULL;
	struct coldstart_file *files = xcalloc(n, sizeof(*files));
	size_t count = 0, capacity = 0, i, e, m;
	int status = 0, ran;

	for (i = 0; i < n && status == 0; i++)
		if (coldstart_file_read(&files[i], outputs[i].path, why) < 0)
			status = -1;
	unlink(err_log);
	run_workload_streams(&request);
	if (status == 0 && faultrec_run(&request, &result, &ran, &rec, why) < 0) {
		free(*why);
		unlink(err_log);
		run_workload_streams(&request);
		if (faultrec_run(&request, &result, &ran, &rec, why) < 0)
			status = -2;
	}
	if (status == 0 && ran != 0) {
		char *err = text_of(err_log);

		*why = proc_failure(ran, err);
		free(err);
		status = -1;
	}
	for (e = 0; e < rec.count && status == 0; e++) {
		const struct faultrec_event *ev = &rec.events[e];

		if (ev->kind == FAULTREC_EXEC) {
			/* the process's mappings before its exec are gone */
			for (m = 0; m < count; m++)
				if (maps[m].pid == ev->pid)
					maps[m].pid = -1;
			continue;
		}
		if (ev->kind == FAULTREC_MAP) {
			for (i = 0; i < n; i++)
				if (!strcmp(ev->path, outputs[i].path))
					*ARRAY_PUSH(maps, count, capacity) =
						(struct mapping){ ev->pid, ev->start, ev->start + ev->length, ev->offset, i };
			continue;
		}
		for (m = count; m-- > 0;) {
			const struct coldstart_file *f;
			uint64_t at;
			size_t k;

			if (maps[m].pid != ev->pid || ev->address < maps[m].start || ev->address >= maps[m].end)
				continue;
			f = &files[maps[m].output];
			at = ev->address - maps[m].start + maps[m].offset;
			for (k = 0; k < f->segment_count; k++) {
				const struct elf_segment *s = &f->segments[k];

				if (s->type == PT_LOAD && at >= s->offset && at < s->offset + s->file_size) {
					struct faults *out = &faults[maps[m].output];

					*ARRAY_PUSH(out->items, out->count, out->capacity) =
						(struct fault){ at - s->offset + s->address, ev->address == ev->ip };
					break;
				}
			}
			break;
		}
	}
	faultrec_free(&rec);
	unlink(err_log);
	free(err_log);
	free(line_copy);
	for (i = 0; i < n; i++)
		coldstart_file_free(&files[i]);
	free(files);
	free(maps);
	return status;
}

int native_find(const struct startup_job *job, const struct startup_output *outputs, size_t n, const char *line,
		const struct startup_run *run, struct native_set *sets, char **why)
{
	struct faults *faults = xcalloc(n, sizeof(*faults));
	struct native_set traced = { 0 };
	size_t i, k;
	int status = 0;

	status = native_faults(job, outputs, n, line, faults, why);
	if (status == 0)
		traced_names(run, &traced);
	for (i = 0; i < n && status == 0; i++) {
		struct elf_object elf;
		void *data;
		size_t size;

		if (!faults[i].count)
			continue;
		if (open_linked(outputs[i].path, &elf, &data, &size, why) < 0) {
			status = -1;
			break;
		}
		for (k = 0; k < faults[i].count; k++) {
			const struct elf_symbol *f;

			if (!faults[i].items[k].code)
				continue;
			/* PLT stubs (in no function) and crt's _init and _fini
			   are the linker's: pagein names no function there, and
			   no order moves them */
			f = elfobj_function_containing(&elf, 0, faults[i].items[k].address);
			if (f && *f->name && strcmp(f->name, "_init") && strcmp(f->name, "_fini") &&
			    !among(&traced, f->name))
				native_add(&sets[i], f->name);
		}
		elfobj_close(&elf);
		munmap(data, size);
	}
	for (i = 0; i < n; i++)
		free(faults[i].items);
	free(faults);
	native_free(&traced);
	return status;
}

/* The pages of f's faults, sorted, without repeats, in a new array of *n. */
static uint64_t *fault_pages(const struct faults *f, size_t *n)
{
	uint64_t *pages = xcalloc(f->count ? f->count : 1, sizeof(*pages));
	size_t k;

	for (k = 0; k < f->count; k++)
		pages[k] = f->items[k].address & ~4095ull;
	*n = u64_sort_unique(pages, f->count);
	return pages;
}

/* Whether the runs a and b (n outputs each) faulted in the same pages of
   every output. */
static bool same_pages(const struct faults *a, const struct faults *b, size_t n)
{
	bool same = true;
	size_t i;

	for (i = 0; i < n && same; i++) {
		size_t na, nb;
		uint64_t *pa = fault_pages(&a[i], &na), *pb = fault_pages(&b[i], &nb);

		same = na == nb && !memcmp(pa, pb, na * sizeof(*pa));
		free(pa);
		free(pb);
	}
	return same;
}

int native_fault_pages(const struct startup_job *job, const struct startup_output *outputs, size_t n,
		       const char *line, struct native_pages *pages, char **why)
{
	struct faults *faults = xcalloc(n * NATIVE_RUNS, sizeof(*faults));
	size_t i, k, r, q, j;
	int status = 0;

	for (r = 0; r < NATIVE_RUNS && status == 0; r++) {
		/* runs 0 and 1 that faulted in the same pages decide the
		   majority (a page in both is in most runs, one in neither
		   is not) and its order (the first run's): the third run
		   would change nothing and is not made (a third of a
		   search's native runs, on a program that runs alike); its
		   faults stay empty */
		if (r == 2 && same_pages(faults, faults + n, n))
			break;
		status = native_faults(job, outputs, n, line, &faults[r * n], why);
	}
	for (i = 0; i < n; i++) {
		/* the pages most runs faulted in, in the order of the first
		   run that did: a program whose runs differ (Python's hash
		   seed changes which of its .cold parts run) is modelled by
		   its usual run, as the median cold start measures it */
		for (r = 0; r < NATIVE_RUNS && status == 0; r++) {
			const struct faults *f = &faults[r * n + i];

			for (k = 0; k < f->count; k++) {
				uint64_t page = f->items[k].address & ~4095ull;
				size_t runs = 0;
				bool known = false;

				for (j = 0; j < pages[i].count && !known; j++)
					known = pages[i].addresses[j] == page;
				for (q = 0; q < NATIVE_RUNS && !known; q++) {
					const struct faults *g = &faults[q * n + i];
					size_t m;

					for (m = 0; m < g->count; m++)
						if ((g->items[m].address & ~4095ull) == page) {
							runs++;
							break;
						}
				}
				if (!known && 2 * runs > NATIVE_RUNS)
					*ARRAY_PUSH(pages[i].addresses, pages[i].count, pages[i].capacity) = page;
			}
		}
		for (r = 0; r < NATIVE_RUNS; r++)
			free(faults[r * n + i].items);
	}
	free(faults);
	return status;
}

/* The function symbol named name in elf (the first defined one), or NULL. */
static const struct elf_symbol *function_named(const struct elf_object *elf, const char *name)
{
	uint32_t k;

	for (k = elfobj_symbol_by_name(elf, name); k; k = elfobj_symbol_next_named(elf, k)) {
		const struct elf_symbol *s = &elf->symbols[k];

		if ((s->type == STT_FUNC || s->type == STT_GNU_IFUNC) && s->shndx != SHN_UNDEF && s->shndx < SHN_LORESERVE)
			return s;
	}
	return NULL;
}

/* The instruction of an objdump -d line ("  ADDR:\tMNEMONIC OPERANDS"):
   its address, whether it ends a block (a jump, a return, ud2, hlt) and,
   for a direct jump, where it goes; false when the line holds none. */
static bool instruction(const char *line, uint64_t *address, bool *ends, bool *direct, uint64_t *target)
{
	static const char *const prefixes[] = { "bnd ", "notrack ", "rep ", "repz ", "ds ", "cs ", NULL };
	char *end;
	const char *m;
	int p;

	*address = strtoull(line, &end, 16);
	if (end == line || *end != ':' || end[1] != '\t')
		return false;
	m = end + 2;
	for (p = 0; prefixes[p]; p++)
		if (!strncmp(m, prefixes[p], strlen(prefixes[p]))) {
			m += strlen(prefixes[p]);
			p = -1;
		}
	*direct = false;
	*ends = m[0] == 'j' || !strncmp(m, "loop", 4) || !strncmp(m, "ret", 3) || !strncmp(m, "ud2", 3) ||
		!strncmp(m, "hlt", 3);
	if (*ends && (m[0] == 'j' || !strncmp(m, "loop", 4))) {
		const char *operand = m + strcspn(m, " ");

		operand += strspn(operand, " ");
		if (*operand && *operand != '*') {
			*target = strtoull(operand, &end, 16);
			*direct = end != operand;
		}
	}
	return true;
}

/* Appends to out the runs and branches of one pass through every block
   of the code of binary in [start, end) (objdump's disassembly): each run
   from a block's start to the jump that ends it, each direct jump taken
   once.  BOLT, reading them, counts every block of it as run. */
static int every_block(FILE *out, const char *binary, uint64_t start, uint64_t end, char **why)
{
	char *low = xasprintf("--start-address=0x%llx", (unsigned long long)start);
	char *high = xasprintf("--stop-address=0x%llx", (unsigned long long)end);
	char *argv[] = { "objdump", "-d", "--no-show-raw-insn", low, high, (char *)binary, NULL };
	struct proc_request request = { .argv = argv, .stdin_null = true, .out = PROC_CAPTURE, .err = PROC_CAPTURE };
	struct proc_result result;
	char *line, *next;
	uint64_t run = start, address, target, last = 0;
	bool ends, direct, pending = false;

	if (proc_exec(&request, &result) != 0) {
		*why = proc_failure(result.status, result.err);
		free(result.out);
		free(result.err);
		free(low);
		free(high);
		return -1;
	}
	for (line = result.out; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, " ");
		if (!instruction(line, &address, &ends, &direct, &target))
			continue;
		if (pending) {
			run = address;
			pending = false;
		}
		last = address;
		if (!ends)
			continue;
		fprintf(out, "R 0x%llx 0x%llx 1\n", (unsigned long long)run, (unsigned long long)address);
		if (direct)
			fprintf(out, "B 0x%llx 0x%llx 1\n", (unsigned long long)address, (unsigned long long)target);
		pending = true;
	}
	if (!pending && last >= run)
		fprintf(out, "R 0x%llx 0x%llx 1\n", (unsigned long long)run, (unsigned long long)last);
	free(result.out);
	free(result.err);
	free(low);
	free(high);
	return 0;
}

/* name without the suffix BOLT or gcc gives a function's cold part
   (".cold", ".cold.N"): the function it is a part of; a new string. */
static char *whole_function(const char *name)
{
	const char *cold = strstr(name, ".cold");

	if (cold && (!cold[5] || (cold[5] == '.' && strspn(cold + 6, "0123456789") == strlen(cold + 6) && cold[6])))
		return xstrndup(name, cold - name);
	return xstrdup(name);
}

long native_profile_write(const char *path, const char *binary, const char *run_path, const struct native_set *set,
			  char **why)
{
	struct elf_object elf;
	struct elf_segment *segments;
	size_t size, count, i;
	uint64_t table_offset, table_size;
	void *data;
	char hex[129], *text = NULL, *quoted_path = trace_quote(run_path);
	size_t length = 0;
	struct native_set done = { 0 };
	FILE *out;
	long functions = 0;
	int status = 0;

	if (open_linked(binary, &elf, &data, &size, why) < 0) {
		free(quoted_path);
		return -1;
	}
	if (!elfobj_build_id(&elf, hex, sizeof(hex)))
		strcpy(hex, "none");
	*why = NULL;
	segments = elfobj_segments(&elf, &count, &table_offset, &table_size, why);
	if (*why) {
		elfobj_close(&elf);
		munmap(data, size);
		free(quoted_path);
		return -1;
	}
	out = open_memstream(&text, &length);
	if (!out)
		fatal("out of memory");
	fprintf(out, "# pagein 2 (linkopt %s)\n# command: the page faults of a native run (perf_event_open)\n# pid: 0\n"
		"# page-size: 4096\n# granularity: function\n"
		"# time: none (every block of the functions a native run entered where the traces under "
		"valgrind did not, once: made by linkopt-startup)\n"
		"# columns: SEQ ADDRESS KIND TIME IP: SYMBOL (in OBJECT)\n", LINKOPT_VERSION);
	fprintf(out, "# object %s build-id %s base 0x0\n", quoted_path, hex);
	for (i = 0; i < count; i++)
		if (segments[i].type == PT_LOAD)
			fprintf(out, "# segment %s 0x%llx-0x%llx\n", quoted_path,
				(unsigned long long)(segments[i].address & ~4095ull),
				(unsigned long long)(segments[i].address + segments[i].memory_size));
	for (i = 0; i < set->count && status == 0; i++) {
		char *name = whole_function(set->names[i]), *cold = xasprintf("%s.cold", name);
		const struct elf_symbol *s = function_named(&elf, name), *part = function_named(&elf, cold);
		char *quoted = trace_quote(name);

		if (s && s->size && !among(&done, name)) {
			native_add(&done, name);
			fprintf(out, "%ld 0x%llx F 0 0x%llx: %s (in %s)\n", functions + 1, (unsigned long long)s->value,
				(unsigned long long)s->value, quoted, quoted_path);
			functions++;
			status = every_block(out, binary, s->value, s->value + s->size, why);
			/* gcc's own cold part of it (-freorder-blocks-and-partition) */
			if (status == 0 && part && part->size)
				status = every_block(out, binary, part->value, part->value + part->size, why);
		}
		free(quoted);
		free(name);
		free(cold);
	}
	fprintf(out, "# end\n");
	if (fclose(out) != 0)
		fatal("out of memory");
	native_free(&done);
	free(segments);
	elfobj_close(&elf);
	munmap(data, size);
	free(quoted_path);
	if (status == 0 && functions && write_file_atomic(path, text, length) < 0) {
		*why = xasprintf("%s: cannot write: %s", path, strerror(errno));
		status = -1;
	}
	free(text);
	return status < 0 ? -1 : functions;
}

void native_keep_defined(const char *binary, struct native_set *set)
{
	struct elf_object elf;
	void *data;
	size_t size, i, k = 0;
	char *why = NULL;

	if (!set->count)
		return;
	if (open_linked(binary, &elf, &data, &size, &why) < 0)
		fatal("%s", why);
	for (i = 0; i < set->count; i++) {
		char *name = whole_function(set->names[i]);

		if (function_named(&elf, name) || function_named(&elf, set->names[i]))
			set->names[k++] = set->names[i];
		else
			free(set->names[i]);
		free(name);
	}
	set->count = k;
	elfobj_close(&elf);
	munmap(data, size);
}
