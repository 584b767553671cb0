/* linkopt-prefetch.o: linked into a program or library ordered with
   deporder's GNU ld script, asks the kernel at start-up to read the traced
   (hot) code in one go (MADV_WILLNEED on __linkopt_hot_start ..
   __linkopt_hot_end), instead of fault by fault with readahead around each.
   Without the script's symbols it does nothing; errors are ignored: it never
   changes what the program does. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

extern const char __linkopt_hot_start[] __attribute__((weak, visibility("hidden")));
extern const char __linkopt_hot_end[] __attribute__((weak, visibility("hidden")));

/* In a section of its own, which deporder's GNU ld script places inside
   the traced range (linkscripts/emit.h: EMIT_PREFETCH_SECTION): it runs at
   every start-up. */
__attribute__((constructor(101), section(".text.linkopt_prefetch"))) static void linkopt_prefetch(void)
{
	uintptr_t start = (uintptr_t)__linkopt_hot_start, end = (uintptr_t)__linkopt_hot_end;
	long page = sysconf(_SC_PAGESIZE);

	if (!start || end <= start || page <= 0)
		return;
	start &= ~(uintptr_t)(page - 1);
	end = (end + page - 1) & ~(uintptr_t)(page - 1);
	(void)madvise((void *)start, end - start, MADV_WILLNEED);
}
