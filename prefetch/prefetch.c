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
   COLDSTART_PREFETCH_PIECE is the same size, for the model.
   Before it, the cut (lib/cut.h): when linkopt-startup filled its record
   after the link (zero as linked: nothing), each piece of the code after
   the traced code gets a mapping of its own, so that a fault there reads
   ahead to its piece's end at most. */
#define _GNU_SOURCE
#define CUT_RECORD_ONLY
#include "../lib/cut.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIECE 65536

/* The section of its code, which deporder's GNU ld script places
   (lib/emit.h): linkopt-prefetch.o's on a page of its own before the
   code, so that its call faults a read-ahead window in over the traced
   code and not from the traced code's end into the code after it, before
   the cut; linkopt-cut.o's inside the traced range, where BOLT, whose
   profile counts it, keeps it hot. */
#ifdef LINKOPT_CUT_ONLY
#define SECTION ".text.linkopt_cut"      /* EMIT_CUT_SECTION */
#else
#define SECTION ".text.linkopt_prefetch" /* EMIT_PREFETCH_SECTION */
#endif

#ifndef LINKOPT_CUT_ONLY
extern const char __linkopt_hot_start[] __attribute__((weak, visibility("hidden")));
extern const char __linkopt_hot_end[] __attribute__((weak, visibility("hidden")));
extern const char __linkopt_hot_head_end[] __attribute__((weak, visibility("hidden")));
extern const char __linkopt_hot_tail_start[] __attribute__((weak, visibility("hidden")));

/* With the constructor, in its section (SECTION). */
__attribute__((section(SECTION))) static void prefetch(uintptr_t start, uintptr_t end, long page)
{
	uintptr_t piece = PIECE > page ? PIECE : (uintptr_t)page;

	if (!start || end <= start)
		return;
	start &= ~(uintptr_t)(page - 1);
	end = (end + page - 1) & ~(uintptr_t)(page - 1);
	for (; start < end; start += piece)
		(void)madvise((void *)start, end - start < piece ? end - start : piece, MADV_WILLNEED);
}

#endif

/* Zero as linked; lib/cut.c's cut_file fills it in the linked file.
   volatile: read from memory, never folded to the zeros it has here. */
__attribute__((used, aligned(8))) static const volatile struct cut_record linkopt_cut = { CUT_MAGIC, 0, 0, 0, 0, 0 };

/* Pages asked of mincore(2) at once (a vector on the stack). */
#define CUT_CHUNK 256

/* The object (program or library) a dl_iterate_phdr walk looks for, by
   an address inside it (at), its name once found, and whether [start,
   end), the segment the record says to advise, lies inside one of its
   PT_LOAD segments that is neither executable nor writable (as mapped:
   whole pages of page bytes). */
struct cut_object {
	uintptr_t at, start, end, page;
	const char *name;
	uintptr_t found, fits;
};

__attribute__((section(SECTION))) static int cut_find_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct cut_object *o = data;
	uintptr_t holds = 0, fits = 0, low, high;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		low = (info->dlpi_addr + ph->p_vaddr) & ~(o->page - 1);
		high = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + o->page - 1) & ~(o->page - 1);
		holds |= (uintptr_t)(o->at >= low && o->at < high);
		fits |= (uintptr_t)(!(ph->p_flags & (PF_X | PF_W)) && o->start >= low && o->end <= high && o->start < o->end);
	}
	if (!holds)
		return 0;
	o->name = info->dlpi_name;
	o->found = 1;
	o->fits = fits;
	return 1;
}

/* 1 when mincore(2) tells this process the truth about the page cache of
   the file holding this code, else 0.  Since Linux 5.2 it does only to
   the file's owner and to one who may write it (as the kernel sees them:
   CAP_FOWNER, CAP_DAC_OVERRIDE); to anyone else it answers every page
   resident (a side channel closed), and a cut trusting it would never
   cut: a system's binary run by its users would read at a cold start
   what it read not cut.  The same test, made with stat and faccessat
   (effective ids, root's override) on the file's path (the program's by
   /proc/self/exe); a root without those capabilities and a file not
   its own, a file that cannot be found or stat'ed: 0, every piece cut.  Every call made
   whatever the answer, no branch on it (see linkopt_cut_pieces); o is
   the walk's result (cut_walk). */
__attribute__((section(SECTION))) static uintptr_t cut_mincore_says(const struct cut_object *o)
{
	/* on the stack, written by the code: a string constant would be
	   read from the file's untraced read-only data, a window at a cold
	   start (t-startup-best: 119 pages read against 97) */
	char exe[] = "/proc/self/exe";
	struct stat st;
	const char *path;
	uid_t euid = geteuid();
	uintptr_t stat_ok, write_ok;

	path = o->name && *o->name ? o->name : exe;
	st.st_uid = (uid_t)-1;
	stat_ok = stat(path, &st) == 0;
	write_ok = faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
	return o->found & stat_ok & ((st.st_uid == euid) | write_ok);
}

/* madvise(MADV_RANDOM) on every other piece of the recorded range, from
   its first: the range's pieces and what precedes them each a mapping
   of its own (the advice does not change what a fault in executable
   code reads on Linux 6.18; the boundaries do).  A piece already in the
   page cache (mincore of its first page, asked CUT_CHUNK pages at a
   time: the whole piece at the 4 KiB that linkopt-startup cuts) reads
   nothing when it faults: resident pieces next to each other stay one
   mapping, so that a warm start maps them with fault-around as if not
   cut, and pays the cut only where a fault would read (a cold start:
   none resident, every piece its own mapping). Where mincore fails or
   does not say (cut_mincore_says), a piece counts as not resident:
   cut.  The record describes page-aligned pieces (cut_walk checks it);
   a failing call is ignored. The loop's body runs the same
   blocks for every piece, without a branch on what is resident or on
   how many pieces there are (one madvise per piece, of length 0 where
   it advises nothing; the mincore of the next CUT_CHUNK pages at the
   first piece and past each chunk): a warm start, a cold one, and a run
   under valgrind of a link with another range (the traces BOLT's
   profile is made from) run the same blocks of this code, and BOLT,
   which moves the blocks no trace ran to its cold part, leaves none of
   them there (a cold start would fault a window in at one before the
   range is cut). */
__attribute__((section(SECTION))) static void linkopt_cut_pieces(long page, const struct cut_object *o)
{
	uintptr_t self = (uintptr_t)&linkopt_cut, start, end, piece = linkopt_cut.piece, at, run, n;
	uintptr_t resident, was_resident = 0, flag = 0, boundary, says, chunk_at = 0, chunk_end = 0, chunk_ok = 0;
	int64_t from = linkopt_cut.start, to = linkopt_cut.end;
	unsigned char vec[CUT_CHUNK] = { 0 };

	start = self + (uintptr_t)from;
	end = self + (uintptr_t)to;
	says = cut_mincore_says(o);
	run = start;
	for (at = start; at < end && at >= start; at += piece) {
		/* at the first piece, and at the first past the chunk asked */
		if (at >= chunk_end) {
			n = (end - at) / (uintptr_t)page;
			n = n > CUT_CHUNK ? CUT_CHUNK : n;
			chunk_at = at;
			chunk_end = at + n * (uintptr_t)page;
			chunk_ok = mincore((void *)at, n * (uintptr_t)page, vec) == 0;
		}
		resident = says & chunk_ok & vec[(at - chunk_at) / (uintptr_t)page] & 1;
		/* a boundary before this piece unless it and the one before
		   are both resident; the run of pieces before it advised
		   when flag says so, in one call */
		boundary = !(resident & was_resident);
		(void)madvise((void *)run, (at - run) * (boundary & flag), MADV_RANDOM);
		flag ^= boundary;
		run += (at - run) * boundary;
		was_resident = resident;
	}
	(void)madvise((void *)run, (end - run) * flag, MADV_RANDOM);
}

/* madvise(MADV_RANDOM) on the read-only segment the record names (the
   untraced .rodata and the unwinding tables: lib/cut.h), whole, with a
   cut: a fault there reads its page alone, not a window centred on it.
   Only with a cut (cut_walk), and only a page-aligned range inside a
   segment of this object that is neither executable nor writable (o,
   the walk's result); else a length of 0.  No branch on it (see
   linkopt_cut_pieces); a failing call is ignored. */
__attribute__((section(SECTION))) static void linkopt_cut_random(long page, const struct cut_object *o)
{
	uintptr_t length = o->end - o->start, ok, p = (uintptr_t)page;
	int64_t from = linkopt_cut.random_start, to = linkopt_cut.random_end;

	ok = o->fits & (uintptr_t)(to > from) & (uintptr_t)(o->start % p == 0) & (uintptr_t)(length % p == 0);
	(void)madvise((void *)(o->start * ok), length * ok, MADV_RANDOM);
}

/* The cut and the advice at start-up, when the record holds a cut of
   page-aligned pieces (a range forward, page-aligned, a piece of whole
   pages): a record written otherwise does nothing.  A branch on the
   record alone: the traces BOLT's profile comes from run a record filled
   as the file's is (lib/cut.h).  One dl_iterate_phdr walk for both. */
__attribute__((section(SECTION))) static void cut_walk(long page)
{
	uintptr_t self = (uintptr_t)&linkopt_cut, p = (uintptr_t)page, piece = linkopt_cut.piece;
	int64_t from = linkopt_cut.start, to = linkopt_cut.end;
	struct cut_object o = { self, self + (uintptr_t)linkopt_cut.random_start,
				self + (uintptr_t)linkopt_cut.random_end, p, NULL, 0, 0 };

	if (!piece || piece % p || to <= from || (self + (uintptr_t)from) % p || (self + (uintptr_t)to) % p ||
	    self + (uintptr_t)to <= self + (uintptr_t)from)
		return;
	(void)dl_iterate_phdr(cut_find_object, &o);
	linkopt_cut_pieces(page, &o);
	linkopt_cut_random(page, &o);
}

#ifdef LINKOPT_CUT_ONLY
/* The end of the traced code, which deporder's script defines when a
   file refers to it (PROVIDE): where linkopt cut starts the range of the
   link BOLT rewrites. */
extern const char __linkopt_hot_end[] __attribute__((weak, visibility("hidden")));

/* linkopt-cut.o: the cut alone, for a link BOLT rewrites (BOLT moves the
   code the prefetch's range would name).  Named as the prefetch's
   constructor, which the cold-start model finds in a trace. */
__attribute__((constructor(101), section(SECTION))) static void linkopt_prefetch(void)
{
	int saved = errno;
	long page = sysconf(_SC_PAGESIZE);

	__asm__ volatile("" : : "r"(__linkopt_hot_end));
	if (page > 0)
		cut_walk(page);
	errno = saved;
}
#else
/* In a section of its own, which deporder's GNU ld script places on a
   page of its own before the code (SECTION): it runs at every start-up. */
__attribute__((constructor(101), section(SECTION))) static void linkopt_prefetch(void)
{
	uintptr_t start = (uintptr_t)__linkopt_hot_start, end = (uintptr_t)__linkopt_hot_end;
	uintptr_t head_end = (uintptr_t)__linkopt_hot_head_end, tail_start = (uintptr_t)__linkopt_hot_tail_start;
	long page;
	int saved = errno;

	page = sysconf(_SC_PAGESIZE);
	if (page > 0) {
		cut_walk(page);
		if (head_end && tail_start) {
			prefetch(start, head_end, page);
			prefetch(tail_start, end, page);
		} else {
			prefetch(start, end, page);
		}
	}
	errno = saved;
}
#endif
