#include "coldstart.h"
#include "readahead.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096
#define BINPRM_BUF_SIZE 256     /* what execve reads first */
#define LD_SO_FIRST_READ 832    /* what ld.so reads first of a library (struct filebuf) */

int coldstart_file_read(struct coldstart_file *file, const char *path, char **why)
{
	struct elf_object elf;
	void *data;
	size_t size;

	memset(file, 0, sizeof(*file));
	if (map_file(path, &data, &size, why) < 0)
		return -1;
	if (elfobj_open_linked(&elf, path, data, size, why) < 0) {
		munmap(data, size);
		return -1;
	}
	file->size = size;
	file->position_independent = elf.type == ET_DYN;
	if (!elfobj_build_id(&elf, file->build_id, sizeof(file->build_id)))
		file->build_id[0] = 0;
	file->segments = elfobj_segments(&elf, &file->segment_count, &file->table_offset, &file->table_size, why);
	elfobj_close(&elf);
	munmap(data, size);
	if (*why)
		return -1;
	return 0;
}

void coldstart_file_free(struct coldstart_file *file)
{
	free(file->segments);
	memset(file, 0, sizeof(*file));
}

static struct coldstart_reads replay(const struct coldstart_file *file, bool program, const uint64_t *addresses,
				     size_t count, unsigned long read_ahead_kb, bool list)
{
	struct readahead_vma *vmas = xcalloc(file->segment_count ? file->segment_count : 1, sizeof(*vmas));
	const struct elf_segment **of_vma = xcalloc(file->segment_count ? file->segment_count : 1, sizeof(*of_vma));
	struct coldstart_reads reads = { 0 };
	struct readahead *ra;
	size_t n = 0, i, v;

	for (i = 0; i < file->segment_count; i++) {
		const struct elf_segment *s = &file->segments[i];

		if (s->type != PT_LOAD || !s->file_size)
			continue;
		vmas[n].file_page = s->offset / PAGE;
		vmas[n].pages = (s->offset + s->file_size + PAGE - 1) / PAGE - s->offset / PAGE;
		vmas[n].virtual_page = s->address / PAGE;
		vmas[n].exec = s->flags & PF_X;
		of_vma[n++] = s;
	}
	ra = readahead_new((file->size + PAGE - 1) / PAGE, read_ahead_kb / 4, vmas, n);
	if (program) {
		readahead_read(ra, 0, BINPRM_BUF_SIZE);
		readahead_read(ra, file->table_offset, file->table_size);
		for (i = 0; i < file->segment_count; i++)
			if (file->segments[i].type == PT_INTERP)
				readahead_read(ra, file->segments[i].offset, file->segments[i].file_size);
		/* padzero: the kernel clears the tail of the last file page of a
		   segment that goes on as .bss */
		for (v = 0; v < n; v++) {
			const struct elf_segment *s = of_vma[v];

			if (s->memory_size > s->file_size && (s->address + s->file_size) % PAGE)
				readahead_touch(ra, v, (s->offset + s->file_size) / PAGE, true);
		}
	} else {
		readahead_read(ra, 0, LD_SO_FIRST_READ);
		if (file->table_offset + file->table_size > LD_SO_FIRST_READ)
			readahead_read(ra, file->table_offset, file->table_size);
	}
	for (i = 0; i < count; i++) {
		for (v = 0; v < n; v++) {
			const struct elf_segment *s = of_vma[v];

			if (addresses[i] >= s->address / PAGE * PAGE && addresses[i] < s->address + s->memory_size) {
				readahead_touch(ra, v, addresses[i] / PAGE - s->address / PAGE + s->offset / PAGE, false);
				break;
			}
		}
	}
	reads.pages = readahead_pages_read(ra);
	reads.requests = readahead_requests(ra);
	if (list) {
		size_t made_count;
		const struct readahead_request *made = readahead_request_list(ra, &made_count);

		reads.list = xmalloc((made_count ? made_count : 1) * sizeof(*reads.list));
		memcpy(reads.list, made, made_count * sizeof(*made));
	}
	readahead_free(ra);
	free(vmas);
	free(of_vma);
	return reads;
}

struct coldstart_reads coldstart_replay(const struct coldstart_file *file, bool program, const uint64_t *addresses,
					size_t count, unsigned long read_ahead_kb)
{
	return replay(file, program, addresses, count, read_ahead_kb, false);
}

struct coldstart_reads coldstart_replay_requests(const struct coldstart_file *file, bool program,
						 const uint64_t *addresses, size_t count, unsigned long read_ahead_kb)
{
	return replay(file, program, addresses, count, read_ahead_kb, true);
}
