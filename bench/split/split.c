/* bench/split/split.so: loaded with LD_PRELOAD by bench/split/run, cuts
   the range LINKOPT_SPLIT="START END PIECE" (hexadecimal: addresses of
   the program as linked, and the piece's size in bytes) of the program's
   mappings into mappings of PIECE bytes at start-up: madvise(MADV_RANDOM)
   on every other piece.  The advice itself does nothing for a fault in an
   executable mapping on Linux 6.16 to 6.18 (the read-ahead of
   do_sync_mmap_readahead's VM_EXEC case is made all the same); the vma
   boundaries it makes do: that read-ahead ends at its mapping's end.  An
   experiment of the benchmark, not a part of the toolkit: without the
   variable, or with a malformed one, it does nothing. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int program_base(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uintptr_t *)data = info->dlpi_addr;
	return 1;   /* the first object is the program */
}

__attribute__((constructor)) static void split(void)
{
	const char *value = getenv("LINKOPT_SPLIT");
	unsigned long start, end, piece, at, k;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t base = 0;
	char *rest;

	if (!value || page <= 0)
		return;
	start = strtoul(value, &rest, 16);
	end = strtoul(rest, &rest, 16);
	piece = strtoul(rest, &rest, 16);
	if (!piece || piece % (unsigned long)page || end <= start)
		return;
	dl_iterate_phdr(program_base, &base);
	start = (start + page - 1) & ~(unsigned long)(page - 1);
	end &= ~(unsigned long)(page - 1);
	for (at = start, k = 0; at < end; at += piece, k++)
		if (k & 1)
			(void)madvise((void *)(base + at), end - at < piece ? end - at : piece, MADV_RANDOM);
}
