/* linkopt-prefetch.o: linked into a program or library ordered with
   deporder's GNU ld script, asks the kernel at start-up to read the traced
   (hot) code ahead (MADV_WILLNEED on __linkopt_hot_start ..
   __linkopt_hot_end), instead of fault by fault with readahead around each;
   when the script splits the traced code for a cold start, its two parts
   (__linkopt_hot_start .. __linkopt_hot_head_end and
   __linkopt_hot_tail_start .. __linkopt_hot_end), not the untraced code
   between them.  Without the script's symbols it does nothing; errors are
   ignored: it never changes what the program does.
   It asks PIECE bytes at a time: of one MADV_WILLNEED the kernel reads at
   most the larger of the device's max_sectors_kb and its read_ahead_kb
   (force_page_cache_ra), and max_sectors_kb is 1280 on a loop device
   here, 128 on others (CI's read as if it were): asked at once, how much
   is read would depend on the device; in 64 KiB pieces it does not (but
   on a device with less than 64 KiB of both).  lib/coldstart.h's
   COLDSTART_PREFETCH_PIECE is the same size, for the model. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define PIECE 65536

extern const char __linkopt_hot_start[] __attribute__((weak, visibility("hidden")));
extern const char __linkopt_hot_end[] __attribute__((weak, visibility("hidden")));
extern const char __linkopt_hot_head_end[] __attribute__((weak, visibility("hidden")));
extern const char __linkopt_hot_tail_start[] __attribute__((weak, visibility("hidden")));

/* With the constructor, in the section the script places in the traced range. */
__attribute__((section(".text.linkopt_prefetch"))) static void prefetch(uintptr_t start, uintptr_t end, long page)
{
	uintptr_t piece = PIECE > page ? PIECE : (uintptr_t)page;

	if (!start || end <= start)
		return;
	start &= ~(uintptr_t)(page - 1);
	end = (end + page - 1) & ~(uintptr_t)(page - 1);
	for (; start < end; start += piece)
		(void)madvise((void *)start, end - start < piece ? end - start : piece, MADV_WILLNEED);
}

/* In a section of its own, which deporder's GNU ld script places inside
   the traced range (lib/emit.h: EMIT_PREFETCH_SECTION): it runs at
   every start-up. */
__attribute__((constructor(101), section(".text.linkopt_prefetch"))) static void linkopt_prefetch(void)
{
	uintptr_t start = (uintptr_t)__linkopt_hot_start, end = (uintptr_t)__linkopt_hot_end;
	uintptr_t head_end = (uintptr_t)__linkopt_hot_head_end, tail_start = (uintptr_t)__linkopt_hot_tail_start;
	long page = sysconf(_SC_PAGESIZE);

	if (page <= 0)
		return;
	if (head_end && tail_start) {
		prefetch(start, head_end, page);
		prefetch(tail_start, end, page);
	} else {
		prefetch(start, end, page);
	}
}
