#include "profile.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int bolt_binary_open(struct bolt_binary *b, const char *path, char **why)
{
	uint32_t rela;
	char *reason;

	memset(b, 0, sizeof(*b));
	b->path = path;
	if (map_file(path, &b->image, &b->image_size, &reason) < 0) {
		*why = xasprintf("%s: %s", path, reason);
		free(reason);
		b->image = NULL;
		return -1;
	}
	if (elfobj_open_linked(&b->elf, path, b->image, b->image_size, why) < 0)
		return -1;
	if (!elfobj_build_id(&b->elf, b->build_id, sizeof(b->build_id))) {
		*why = xasprintf("%s: has no build-id: link it with -Wl,--build-id, so that a trace can be "
				 "proved to be of it", path);
		return -1;
	}
	rela = elfobj_section_by_name(&b->elf, ".rela.text");
	if (!rela || b->elf.sections[rela].size == 0) {
		*why = xasprintf("%s: has no relocations for .text: link it with -Wl,--emit-relocs (-Wl,-q), "
				 "so that BOLT can move its functions", path);
		return -1;
	}
	if (!elfobj_section_by_name(&b->elf, ".symtab")) {
		*why = xasprintf("%s: has no symbol table (stripped): BOLT and the order need one", path);
		return -1;
	}
	return 0;
}

void bolt_binary_close(struct bolt_binary *b)
{
	elfobj_close(&b->elf);
	if (b->image)
		munmap(b->image, b->image_size);
}

bool bolt_binary_has_cold_parts(const struct bolt_binary *b)
{
	size_t i;

	for (i = 0; i < b->elf.symbol_count; i++) {
		const struct elf_symbol *s = &b->elf.symbols[i];
		const char *cold = s->name ? strstr(s->name, ".cold") : NULL;

		if (s->type == 2 /* STT_FUNC */ && cold && (!cold[5] || cold[5] == '.'))
			return true;
	}
	return false;
}

char *bolt_split_weight(const char *spec, double *weight, char **why)
{
	const char *colon = strrchr(spec, ':');
	char *end;

	*weight = 1;
	if (!colon || colon == spec || !colon[1] || strchr(colon, '/'))
		return xstrdup(spec);
	errno = 0;
	*weight = strtod(colon + 1, &end);
	if (*end || errno || !isfinite(*weight) || *weight <= 0) {
		*why = xasprintf("%s: the weight after ':' is not a positive number", spec);
		return NULL;
	}
	return xstrndup(spec, colon - spec);
}

static bool event_in_object(const struct trace_event *e, const struct trace_object *o)
{
	return e->kind == 'F' && trace_object_holds(o, e->address);
}

int bolt_trace_open(struct bolt_trace *t, const char *spec, const struct bolt_binary *b, bool branches,
		    char **why)
{
	char *reason = NULL, *seen = xstrdup("");
	size_t i, functions = 0;
	char *path;

	memset(t, 0, sizeof(*t));
	path = bolt_split_weight(spec, &t->weight, why);
	if (!path)
		return -1;
	t->path = path;
	if (trace_read(path, &t->trace, &reason) < 0) {
		*why = xasprintf("%s: %s", path, reason);
		free(reason);
		free(seen);
		return -1;
	}
	if (!t->trace.complete) {
		*why = xasprintf("%s: the trace has no '# end' line: the run was cut short, so its counts are "
				 "not the workload's", path);
		free(seen);
		return -1;
	}
	for (i = 0; i < t->trace.object_count && !t->object; i++) {
		const struct trace_object *o = &t->trace.objects[i];
		char *more = xasprintf("%s%s %s (build-id %s)", seen, *seen ? "," : "", o->path, o->build_id);

		free(seen);
		seen = more;
		if (!strcmp(o->build_id, b->build_id))
			t->object = o;
	}
	if (!t->object) {
		*why = xasprintf("%s: is not a trace of %s (build-id %s): it traced %s", path, b->path, b->build_id,
				 *seen ? seen : "no object");
		free(seen);
		return -1;
	}
	free(seen);
	if (branches) {
		for (i = 0; i < t->trace.branch_count && !trace_object_holds(t->object, t->trace.branches[i].from);
		     i++)
			;
		if (i == t->trace.branch_count) {
			*why = xasprintf("%s: holds no branch of %s: trace it with pagein --branches=yes%s", path,
					 b->path, t->trace.branch_count ? " (its branches are all in other objects)" : "");
			return -1;
		}
		return 0;
	}
	for (i = 0; i < t->trace.event_count; i++)
		functions += event_in_object(&t->trace.events[i], t->object);
	if (!functions) {
		*why = xasprintf("%s: records no function of %s first entered: trace it with pagein "
				 "--granularity=function (or cygtrace)", path, b->path);
		return -1;
	}
	return 0;
}

void bolt_trace_close(struct bolt_trace *t)
{
	trace_free(&t->trace);
	free((char *)t->path);
}

/* A record of the pre-aggregated profile. */
struct record {
	char kind;          /* 'B' or 'F' */
	uint64_t from, to;
	double count;
};

static int record_order(const void *pa, const void *pb)
{
	const struct record *a = pa, *b = pb;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

/* Whether address (of the link) is in code the linker made: a PLT stub
   (.plt, .plt.got, .plt.sec, .iplt), .init, .fini.  A program's own code
   in a section of another name keeps its runs. */
static bool linker_code(const struct bolt_binary *b, uint64_t address)
{
	static const char *const names[] = { ".plt", ".plt.got", ".plt.sec", ".iplt", ".init", ".fini" };
	size_t i, k;

	for (i = 1; i < b->elf.section_count; i++) {
		const struct elf_section *s = &b->elf.sections[i];

		if (!(s->flags & SHF_EXECINSTR) || address < s->address || address >= s->address + s->size)
			continue;
		for (k = 0; s->name && k < sizeof(names) / sizeof(*names); k++)
			if (!strcmp(s->name, names[k]))
				return true;
		return false;
	}
	return false;
}

static void add_records(struct record **r, size_t *n, size_t *cap, const struct bolt_binary *b,
			const struct bolt_trace *t)
{
	const struct trace_object *o = t->object;
	size_t i;

	for (i = 0; i < t->trace.branch_count; i++) {
		const struct trace_transfer *x = &t->trace.branches[i];

		/* a call into another object: BOLT has no name for where it went */
		if (!trace_object_holds(o, x->from) || !trace_object_holds(o, x->to))
			continue;
		*ARRAY_PUSH(*r, *n, *cap) = (struct record){ 'B', x->from - o->base, x->to - o->base,
							     x->count * t->weight };
	}
	for (i = 0; i < t->trace.run_count; i++) {
		const struct trace_transfer *x = &t->trace.runs[i];

		/* a run through a PLT stub or .init: BOLT 16 has no code of
		   its own there to lay it on */
		if (!trace_object_holds(o, x->from) || !trace_object_holds(o, x->to) ||
		    linker_code(b, x->from - o->base) || linker_code(b, x->to - o->base))
			continue;
		*ARRAY_PUSH(*r, *n, *cap) = (struct record){ 'F', x->from - o->base, x->to - o->base,
							     x->count * t->weight };
	}
}

int bolt_write_preaggregated(const char *path, const struct bolt_binary *b, const struct bolt_trace *traces,
			     size_t count, size_t *records, char **why)
{
	struct record *r = NULL;
	size_t n = 0, cap = 0, i, k;
	FILE *f;

	for (i = 0; i < count; i++)
		add_records(&r, &n, &cap, b, &traces[i]);
	if (n)
		qsort(r, n, sizeof(*r), record_order);
	f = fopen(path, "w");
	if (!f) {
		*why = xasprintf("%s: cannot create: %s", path, strerror(errno));
		free(r);
		return -1;
	}
	*records = 0;
	for (i = 0; i < n; i = k) {
		double sum = 0;
		uint64_t c;

		for (k = i; k < n && !record_order(&r[i], &r[k]); k++)
			sum += r[k].count;
		c = (uint64_t)llround(sum);
		if (c == 0)
			continue;
		if (r[i].kind == 'B')
			fprintf(f, "B %" PRIx64 " %" PRIx64 " %" PRIu64 " 0\n", r[i].from, r[i].to, c);
		else
			fprintf(f, "F %" PRIx64 " %" PRIx64 " %" PRIu64 "\n", r[i].from, r[i].to, c);
		++*records;
	}
	free(r);
	if (ferror(f) | (fclose(f) != 0)) {
		*why = xasprintf("%s: write failed: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A branch of an fdata file: the text of its six location fields, and its counts. */
struct fdata_line {
	char *key;
	double mispredicts, count;
};

static int fdata_order(const void *pa, const void *pb)
{
	return strcmp(((const struct fdata_line *)pa)->key, ((const struct fdata_line *)pb)->key);
}

/* Splits an fdata line into its key and counts; NULL when it is not one. */
static const char *fdata_parse(char *line, double weight, struct fdata_line *out)
{
	char *field[8], *p = line, *end;
	double mispredicts, count;
	int n;

	for (n = 0; n < 8; n++) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		field[n] = p;
		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = '\0';
	}
	while (*p == ' ')
		p++;
	if (n != 8 || *p)
		return "not 'KIND NAME OFFSET KIND NAME OFFSET MISPREDICTS COUNT'";
	mispredicts = strtod(field[6], &end);
	if (*end || mispredicts < 0)
		return "its mispredict count is not a number";
	count = strtod(field[7], &end);
	if (*end || count < 0)
		return "its count is not a number";
	out->key = xasprintf("%s %s %s %s %s %s", field[0], field[1], field[2], field[3], field[4], field[5]);
	out->mispredicts = mispredicts * weight;
	out->count = count * weight;
	return NULL;
}

static int read_fdata(const struct bolt_fdata *file, struct fdata_line **lines, size_t *n, size_t *cap,
		      char **why)
{
	FILE *f = fopen(file->path, "r");
	char *line = NULL;
	size_t len_cap = 0, number = 0;
	ssize_t len;
	int status = 0;

	if (!f) {
		*why = xasprintf("%s: cannot open: %s", file->path, strerror(errno));
		return -1;
	}
	while (status == 0 && (len = getline(&line, &len_cap, f)) > 0) {
		struct fdata_line l;
		const char *bad;

		number++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len || !strcmp(line, "boltedcollection"))
			continue;
		if (!strcmp(line, "no_lbr")) {
			*why = xasprintf("%s: is a sample profile (no_lbr), not a branch profile: it cannot be "
					 "merged with branches", file->path);
			status = -1;
		} else if ((bad = fdata_parse(line, file->weight, &l))) {
			*why = xasprintf("%s: line %zu: %s", file->path, number, bad);
			status = -1;
		} else {
			*ARRAY_PUSH(*lines, *n, *cap) = l;
		}
	}
	if (status == 0 && ferror(f)) {
		*why = xasprintf("%s: read failed: %s", file->path, strerror(errno));
		status = -1;
	}
	if (status == 0 && number == 0) {
		*why = xasprintf("%s: is empty: the profiled run wrote no branch", file->path);
		status = -1;
	}
	free(line);
	fclose(f);
	return status;
}

int bolt_merge_fdata(const char *path, const struct bolt_fdata *files, size_t count, size_t *written,
		     char **why)
{
	struct fdata_line *lines = NULL;
	size_t n = 0, cap = 0, i, k;
	int status = 0;
	FILE *f;

	*written = 0;
	for (i = 0; i < count && status == 0; i++)
		status = read_fdata(&files[i], &lines, &n, &cap, why);
	if (status == 0 && !(f = fopen(path, "w"))) {
		*why = xasprintf("%s: cannot create: %s", path, strerror(errno));
		status = -1;
	}
	if (status == 0) {
		if (n)
			qsort(lines, n, sizeof(*lines), fdata_order);
		for (i = 0; i < n; i = k) {
			double mispredicts = 0, sum = 0;

			for (k = i; k < n && !strcmp(lines[i].key, lines[k].key); k++) {
				mispredicts += lines[k].mispredicts;
				sum += lines[k].count;
			}
			if (llround(sum) == 0)
				continue;
			fprintf(f, "%s %lld %lld\n", lines[i].key, llround(mispredicts), llround(sum));
			++*written;
		}
		if (ferror(f) | (fclose(f) != 0)) {
			*why = xasprintf("%s: write failed: %s", path, strerror(errno));
			status = -1;
		}
	}
	for (i = 0; i < n; i++)
		free(lines[i].key);
	free(lines);
	return status;
}

/* A function of the binary and what the order knows of it. */
struct function {
	const struct elf_symbol *symbol;
	bool placed;
	bool timed;          /* the start-up traces tell when it first ran */
	bool listed;         /* in the list runs_by_bytes is making */
	double bytes;        /* executed bytes in the traces runs_by_bytes reads, weighted */
};

static int by_bytes(const void *pa, const void *pb)
{
	const struct function *const *a = pa, *const *b = pb;

	if ((*a)->bytes != (*b)->bytes)
		return (*a)->bytes > (*b)->bytes ? -1 : 1;
	return (*a)->symbol->value < (*b)->symbol->value ? -1 : (*a)->symbol->value > (*b)->symbol->value;
}

/* True when another function symbol at another address has the name. */
static bool shared_name(const struct elf_object *elf, const struct elf_symbol *s)
{
	uint32_t i;

	for (i = elfobj_symbol_by_name(elf, s->name); i; i = elfobj_symbol_next_named(elf, i)) {
		const struct elf_symbol *other = &elf->symbols[i];

		if ((other->type == 2 /* STT_FUNC */ || other->type == 10 /* STT_GNU_IFUNC */) &&
		    other->value != s->value)
			return true;
	}
	return false;
}

/* The entry of the function table for s: functions are few enough that a
   map by symbol address costs nothing. */
static struct function *function_of(struct strmap *map, const struct elf_symbol *s)
{
	char *key = xasprintf("%" PRIx64, s->value);
	void **slot = strmap_slot(map, key);

	if (!*slot) {
		struct function *f = xcalloc(1, sizeof(*f));

		f->symbol = s;
		*slot = f;
	} else {
		free(key); /* the table keeps the first one */
	}
	return *slot;
}

static void place(FILE *out, struct function *f, struct bolt_order_stats *stats, size_t *counter,
		  const struct elf_object *elf)
{
	if (f->placed)
		return;
	f->placed = true;
	if (shared_name(elf, f->symbol)) {
		stats->ambiguous++;
		return;
	}
	fprintf(out, "%s\n", f->symbol->name);
	++*counter;
}

/* The functions not placed yet that the traces' runs executed, into
   *all, the most executed bytes first; their number. */
static size_t runs_by_bytes(struct strmap *map, const struct bolt_binary *b, const struct bolt_trace *traces,
			    size_t count, struct function ***all, size_t *capall)
{
	size_t nall = 0, i, k;

	for (k = 0; k < count; k++) {
		const struct bolt_trace *t = &traces[k];

		for (i = 0; i < t->trace.run_count; i++) {
			const struct trace_transfer *x = &t->trace.runs[i];
			const struct elf_symbol *s;
			struct function *f;

			if (!trace_object_holds(t->object, x->from))
				continue;
			s = elfobj_function_containing(&b->elf, 0, x->from - t->object->base);
			if (!s)
				continue;
			f = function_of(map, s);
			if (f->placed || f->timed)
				continue;
			if (!f->listed) {
				f->listed = true;
				f->bytes = 0;
				*ARRAY_PUSH(*all, nall, *capall) = f;
			}
			f->bytes += (double)(x->to - x->from + 1) * x->count * t->weight;
		}
	}
	if (nall)
		qsort(*all, nall, sizeof(**all), by_bytes);
	for (i = 0; i < nall; i++)
		(*all)[i]->listed = false;
	return nall;
}

int bolt_write_order(const char *path, const struct bolt_binary *b, const struct bolt_trace *startup,
		     size_t nstartup, const struct bolt_trace *profile, size_t nprofile, struct bolt_order_stats *stats,
		     char **why)
{
	struct strmap map = { 0 };
	struct function **all = NULL, **timed = NULL;
	size_t nall, capall = 0, ntimed = 0, captimed = 0, i, k;
	FILE *out = fopen(path, "w");
	int status = 0;

	memset(stats, 0, sizeof(*stats));
	if (!out) {
		*why = xasprintf("%s: cannot create: %s", path, strerror(errno));
		return -1;
	}
	/* the start-up functions in the order the run first entered them (F
	   records) or, for those pagein has no entry record of (valgrind does
	   not name crt's _init and frame_dummy), first touched a code page
	   from inside them (C records) */
	for (k = 0; k < nstartup; k++) {
		const struct bolt_trace *t = &startup[k];

		for (i = 0; i < t->trace.event_count; i++) {
			const struct trace_event *e = &t->trace.events[i];
			uint64_t at = e->kind == 'F' ? e->address : e->ip;
			const struct elf_symbol *s;
			struct function *f;

			if ((e->kind != 'F' && e->kind != 'C') || !trace_object_holds(t->object, at))
				continue;
			s = elfobj_function_containing(&b->elf, 0, at - t->object->base);
			if (!s || (f = function_of(&map, s))->timed)
				continue;
			f->timed = true;
			*ARRAY_PUSH(timed, ntimed, captimed) = f;
		}
	}
	/* those the start-up ran at no time the traces tell come first: placed
	   last, one run early would make the kernel read the code after the
	   start-up code (it reads code forward from a fault) */
	nall = runs_by_bytes(&map, b, startup, nstartup, &all, &capall);
	for (i = 0; i < nall; i++)
		place(out, all[i], stats, &stats->startup, &b->elf);
	for (i = 0; i < ntimed; i++)
		place(out, timed[i], stats, &stats->startup, &b->elf);
	nall = runs_by_bytes(&map, b, profile, nprofile, &all, &capall);
	for (i = 0; i < nall; i++)
		place(out, all[i], stats, &stats->steady, &b->elf);
	if (ferror(out) | (fclose(out) != 0)) {
		*why = xasprintf("%s: write failed: %s", path, strerror(errno));
		status = -1;
	}
	free(all);
	free(timed);
	for (i = 0; i < map.capacity; i++)
		if (map.slots && map.slots[i].key) {
			free((char *)map.slots[i].key);
			free(map.slots[i].value);
		}
	strmap_free(&map);
	return status;
}
