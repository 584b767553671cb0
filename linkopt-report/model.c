#include "model.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>

static uint64_t page_down(uint64_t a, uint64_t page)
{
	return a / page * page;
}

static uint64_t page_up(uint64_t a, uint64_t page)
{
	return (a + page - 1) / page * page;
}

static void append(char **list, const char *name)
{
	char *more = *list ? xasprintf("%s, %s", *list, name) : xstrdup(name);

	free(*list);
	*list = more;
}

/* The file at the trace's path must be the one traced: the same build-id
   (when the trace has one) and the same load segments at the load base. */
static int check_same_file(struct model_object *m, char **why)
{
	const struct trace_object *o = m->object;
	char hex[128];
	size_t i, k;

	if (strcmp(o->build_id, "none") != 0) {
		if (!elfobj_build_id(&m->elf, hex, sizeof(hex))) {
			*why = xasprintf("%s: has no build-id, the traced file had %s: not the file that was traced "
					 "(relinked since?)", m->file, o->build_id);
			return -1;
		}
		if (strcmp(hex, o->build_id) != 0) {
			*why = xasprintf("%s: build-id %s, the traced file had %s: not the file that was traced "
					 "(relinked since?)", m->file, hex, o->build_id);
			return -1;
		}
	}
	for (i = 0; i < m->segment_count; i++) {
		uint64_t start = o->base + m->segments[i].elf.address;
		bool found = false;

		for (k = 0; k < o->segment_count && !found; k++)
			found = o->segments[k].start == start;
		if (!found) {
			*why = xasprintf("%s: load segment %zu (at 0x%llx) is not among the segments the trace "
					 "recorded: not the file that was traced", m->file, i,
					 (unsigned long long)start);
			return -1;
		}
	}
	if (m->segment_count != o->segment_count) {
		*why = xasprintf("%s: %zu load segments, the trace recorded %zu: not the file that was traced",
				 m->file, m->segment_count, o->segment_count);
		return -1;
	}
	return 0;
}

/* The pages of each segment, the file page behind each, the sections on
   each. */
static int lay_out_pages(struct model_object *m, char **why)
{
	uint64_t page = m->page_size;
	size_t i, k, s;

	for (i = 0; i < m->segment_count; i++) {
		struct model_segment *seg = &m->segments[i];
		const struct elf_segment *e = &seg->elf;
		uint64_t first = page_down(e->address, page), end = page_up(e->address + e->memory_size, page);

		if (e->offset % page != e->address % page) {
			*why = xasprintf("%s: load segment %zu: its file offset 0x%llx and address 0x%llx differ "
					 "modulo the page size %llu", m->file, i, (unsigned long long)e->offset,
					 (unsigned long long)e->address, (unsigned long long)page);
			return -1;
		}
		seg->code = (e->flags & PF_X) != 0;
		seg->page_count = e->memory_size ? (end - first) / page : 0;
		seg->pages = xcalloc(seg->page_count ? seg->page_count : 1, sizeof(*seg->pages));
		for (k = 0; k < seg->page_count; k++) {
			struct model_page *p = &seg->pages[k];

			p->address = first + k * page;
			p->in_file = e->file_size && p->address < e->address + e->file_size;
			if (p->in_file)
				p->file_page = (e->offset - (e->address - first) + k * page) / page;
		}
		for (s = 1; s < m->elf.section_count; s++) {
			const struct elf_section *sec = &m->elf.sections[s];
			uint64_t from = sec->address, to = sec->address + (sec->size ? sec->size : 1);

			if (!(sec->flags & SHF_ALLOC) || !sec->name || from < e->address ||
			    from >= e->address + (e->memory_size ? e->memory_size : 1))
				continue;
			/* .tbss takes no room in memory: it overlaps what follows */
			if ((sec->flags & SHF_TLS) && sec->type == SHT_NOBITS)
				continue;
			append(&seg->sections, sec->name);
			for (k = (from - first) / page; k < seg->page_count && seg->pages[k].address < to; k++)
				append(&seg->pages[k].sections, sec->name);
		}
	}
	return 0;
}

static struct model_page *page_at(struct model_object *m, uint64_t address, struct model_segment **in)
{
	size_t i;

	for (i = 0; i < m->segment_count; i++) {
		struct model_segment *seg = &m->segments[i];

		if (seg->page_count && address >= seg->pages[0].address &&
		    address < seg->pages[0].address + seg->page_count * m->page_size) {
			*in = seg;
			return &seg->pages[(address - seg->pages[0].address) / m->page_size];
		}
	}
	return NULL;
}

/* Reads the window of the model around file page p, unless p was read
   already: the kernel's read-around on a page-cache miss of a file
   mapping, read_ahead bytes with the missed page in the middle. */
static void read_around(unsigned char *read, size_t file_pages, uint64_t p, uint64_t window)
{
	uint64_t start, k;

	if (p >= file_pages || read[p])
		return;
	start = p > window / 2 ? p - window / 2 : 0;
	for (k = start; k < start + (window ? window : 1) && k < file_pages; k++)
		read[k] = 1;
	read[p] = 1;
}

/* Every C and D record of the object, in the order of the trace: the
   pages' first touches and ranks, and the cold-start reads. */
static int apply_records(struct model_object *m, uint64_t read_ahead, char **why)
{
	const struct trace *t = m->trace;
	uint64_t window = read_ahead / m->page_size;
	unsigned char *read; /* per file page: 0 not read, 1 read, 2 read and in a segment */
	size_t i, k, rank = 0;

	m->file_pages = page_up(m->image_size, m->page_size) / m->page_size;
	read = xcalloc(m->file_pages ? m->file_pages : 1, sizeof(*read));
	for (i = 0; i < t->event_count; i++) {
		const struct trace_event *r = &t->events[i];
		struct model_segment *seg;
		struct model_page *p;

		if (r->kind == TRACE_FUNCTION && trace_object_holds(m->object, r->address))
			m->functions_run++;
		if ((r->kind != TRACE_CODE && r->kind != TRACE_DATA) || trace_object_at(t, r->address, r->size ? r->size : 1) != m->object)
			continue;
		p = page_at(m, page_down(r->address - m->object->base, m->page_size), &seg);
		if (!p) {
			*why = xasprintf("%s: line of record %llu: page 0x%llx of %s lies in none of its load segments",
					 t->path, (unsigned long long)r->sequence, (unsigned long long)r->address, m->path);
			free(read);
			return -1;
		}
		if (r->kind == TRACE_CODE ? p->code : p->data)
			continue;
		if (r->kind == TRACE_CODE) {
			p->code = true;
			p->code_time = r->time;
			m->code_pages++;
			seg->code_pages++;
		} else {
			p->data = true;
			p->data_time = r->time;
			m->data_pages++;
			seg->data_pages++;
		}
		if (!p->rank) {
			p->rank = ++rank;
			p->time = r->time;
			p->symbol = r->symbol && *r->symbol ? r->symbol : NULL;
			seg->touched++;
			m->touched++;
			if (p->in_file)
				read_around(read, m->file_pages, p->file_page, window);
		}
	}
	for (i = 0; i < m->file_pages; i++)
		if (read[i])
			m->read++;
	m->read_unmapped = m->read;
	for (i = 0; i < m->segment_count; i++) {
		struct model_segment *seg = &m->segments[i];

		for (k = 0; k < seg->page_count; k++) {
			struct model_page *p = &seg->pages[k];

			if (!p->in_file || p->file_page >= m->file_pages || !read[p->file_page])
				continue;
			p->read = true;
			seg->read++;
		}
	}
	for (i = 0; i < m->segment_count; i++)
		for (k = 0; k < m->segments[i].page_count; k++) {
			struct model_page *p = &m->segments[i].pages[k];

			/* a file page two segments share counts once */
			if (p->in_file && p->file_page < m->file_pages && read[p->file_page] == 1) {
				read[p->file_page] = 2;
				m->read_unmapped--;
			}
		}
	free(read);
	return 0;
}

static int compare_address(const void *a, const void *b)
{
	const struct elf_symbol *x = *(const struct elf_symbol *const *)a, *y = *(const struct elf_symbol *const *)b;

	return x->value < y->value ? -1 : x->value > y->value;
}

/* The entries of the functions the trace ran in the object, file
   addresses, sorted. */
static uint64_t *entries_run(const struct model_object *m, size_t *count)
{
	const struct trace *t = m->trace;
	uint64_t *entries = xcalloc(m->functions_run + 1, sizeof(*entries));
	size_t i, n = 0;

	for (i = 0; i < t->event_count && n < m->functions_run; i++)
		if (t->events[i].kind == TRACE_FUNCTION && trace_object_holds(m->object, t->events[i].address))
			entries[n++] = t->events[i].address - m->object->base;
	qsort(entries, n, sizeof(*entries), u64_compare);
	*count = n;
	return entries;
}

/* The hot range: the one the GNU ld script marks, when the binary keeps
   its symbols (they exist when linkopt-prefetch.o refers to them); else,
   from the trace's function records, the longest stretch of the code in
   which every function is one that start-up ran: after a good order, the
   ordered head of .text. */
static void find_hot_range(struct model_object *m)
{
	uint32_t start = elfobj_symbol_by_name(&m->elf, "__linkopt_hot_start");
	uint32_t end = elfobj_symbol_by_name(&m->elf, "__linkopt_hot_end");
	const struct elf_symbol **functions;
	uint64_t *entries;
	size_t i, n = 0, run = 0, best = 0, best_end = 0, entry_count;

	if (start && end && m->elf.symbols[end].value > m->elf.symbols[start].value) {
		m->hot_how = MODEL_HOT_SYMBOLS;
		m->hot_start = m->elf.symbols[start].value;
		m->hot_end = m->elf.symbols[end].value;
		return;
	}
	if (!m->functions_run)
		return;
	entries = entries_run(m, &entry_count);
	functions = xcalloc(m->elf.symbol_count + 1, sizeof(*functions));
	for (i = 0; i < m->elf.symbol_count; i++) {
		const struct elf_symbol *s = &m->elf.symbols[i];

		if ((s->type == STT_FUNC || s->type == STT_GNU_IFUNC) && s->size && s->shndx > 0 &&
		    s->shndx < m->elf.section_count && (m->elf.sections[s->shndx].flags & SHF_EXECINSTR))
			functions[n++] = s;
	}
	qsort(functions, n, sizeof(*functions), compare_address);
	for (i = 0; i < n; i++) {
		/* aliases of one body count once */
		if (i && functions[i]->value == functions[i - 1]->value)
			continue;
		run = bsearch(&functions[i]->value, entries, entry_count, sizeof(*entries), u64_compare) ? run + 1 : 0;
		if (run > best) {
			best = run;
			best_end = i;
		}
	}
	if (best) {
		size_t first = best_end, left = best;

		while (left > 1) {
			first--;
			if (functions[first]->value != functions[first + 1]->value)
				left--;
		}
		while (first > 0 && functions[first - 1]->value == functions[first]->value)
			first--;
		m->hot_how = MODEL_HOT_FUNCTIONS;
		m->hot_start = functions[first]->value;
		m->hot_end = functions[best_end]->value + functions[best_end]->size;
		m->hot_functions = best;
	}
	free(functions);
	free(entries);
}

static void mark_hot(struct model_object *m)
{
	size_t i, k;

	if (m->hot_how == MODEL_HOT_NONE)
		return;
	for (i = 0; i < m->segment_count; i++)
		for (k = 0; k < m->segments[i].page_count; k++) {
			struct model_page *p = &m->segments[i].pages[k];

			p->hot = p->address < m->hot_end && p->address + m->page_size > m->hot_start;
		}
}

/* The GNU build-id of the ELF file at path, into hex; false when it is
   not a linked ELF file with one. */
static bool build_id_of(const char *path, char *hex, size_t hex_size)
{
	struct elf_object elf;
	struct stat st;
	void *image;
	size_t size;
	char *why = NULL;
	bool found = false;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || map_file(path, &image, &size, &why) < 0) {
		free(why);
		return false;
	}
	if (elfobj_is_elf(image, size) && elfobj_open_linked(&elf, path, image, size, &why) == 0) {
		found = elfobj_build_id(&elf, hex, hex_size);
		elfobj_close(&elf);
	}
	free(why);
	munmap(image, size);
	return found;
}

/* True if the file at path has build-id id. */
static bool has_build_id(const char *path, const char *id)
{
	char hex[129];

	return build_id_of(path, hex, sizeof(hex)) && !strcmp(hex, id);
}

char *model_traced_file(const struct trace_object *object, const char *const *copies, size_t copy_count,
			const char *folder)
{
	char *found = NULL;
	size_t i;
	DIR *dir;
	struct dirent *entry;

	if (!strcmp(object->build_id, "none") || has_build_id(object->path, object->build_id))
		return xstrdup(object->path);
	for (i = 0; i < copy_count; i++)
		if (has_build_id(copies[i], object->build_id))
			return xstrdup(copies[i]);
	if (!folder || !(dir = opendir(folder)))
		return NULL;
	while (!found && (entry = readdir(dir))) {
		char *path = xasprintf("%s/%s", folder, entry->d_name);

		if (entry->d_name[0] != '.' && has_build_id(path, object->build_id))
			found = path;
		else
			free(path);
	}
	closedir(dir);
	return found;
}

int model_build(struct model_object *m, const struct trace *trace, const struct trace_object *object,
		const char *file, uint64_t read_ahead, char **why)
{
	struct elf_segment *segments;
	size_t i;

	memset(m, 0, sizeof(*m));
	m->trace = trace;
	m->object = object;
	m->path = xstrdup(object->path);
	m->file = xstrdup(file ? file : object->path);
	m->page_size = trace->page_size ? trace->page_size : 4096;
	if (map_file(m->file, &m->image, &m->image_size, why) < 0 ||
	    elfobj_open_linked(&m->elf, m->file, m->image, m->image_size, why) < 0 ||
	    elfobj_load_segments(&m->elf, &segments, &m->segment_count, why) < 0) {
		char *reason = *why;

		*why = xasprintf("%s: %s", m->file, reason);
		free(reason);
		goto fail;
	}
	m->segments = xcalloc(m->segment_count ? m->segment_count : 1, sizeof(*m->segments));
	for (i = 0; i < m->segment_count; i++)
		m->segments[i].elf = segments[i];
	free(segments);
	if (check_same_file(m, why) < 0 || lay_out_pages(m, why) < 0 || apply_records(m, read_ahead, why) < 0)
		goto fail;
	find_hot_range(m);
	mark_hot(m);
	return 0;
fail:
	model_free(m);
	return -1;
}

void model_free(struct model_object *m)
{
	size_t i, k;

	for (i = 0; i < m->segment_count; i++) {
		for (k = 0; k < m->segments[i].page_count; k++)
			free(m->segments[i].pages[k].sections);
		free(m->segments[i].pages);
		free(m->segments[i].sections);
	}
	free(m->segments);
	if (m->elf.elf)
		elfobj_close(&m->elf);
	if (m->image)
		munmap(m->image, m->image_size);
	free(m->path);
	free(m->file);
	memset(m, 0, sizeof(*m));
}
