/* cut: the code after the traced code cut into mappings of its own at
   start-up.  A fault in an executable mapping reads ahead from the
   faulting page to the mapping's end at most (Linux 6.16 and later), so a
   start-up that runs code no training workload ran reads the piece it
   falls in, not a whole read-ahead window.  deporder's
   --untraced-segment-kb makes the pieces PT_LOAD segments at the link;
   the cut makes them at start-up instead, and so reaches code no link
   script places: BOLT's cold code.  linkopt-prefetch.o holds a record,
   zero (no cut) as linked; cut_file fills it in a linked file with the
   range and the piece size, and the prefetch's constructor, before its
   prefetch, gives every piece of the range a mapping of its own
   (madvise(MADV_RANDOM) on every other piece: on Linux 6.18 the advice
   itself changes nothing for a fault in executable code, the vma
   boundaries it makes do; bench/split/run), but for pieces already in
   the page cache (mincore of a piece's first page), which read nothing and stay one mapping with
   their resident neighbours: a warm start maps them with fault-around as
   if not cut (where mincore tells the truth: to the file's owner, a
   writer of it, root; for others every piece is cut).  The same record
   (version 2) names the read-only segment that holds the untraced
   .rodata (.rodata.untraced: deporder's data-first placement, and
   cold-start's when it sets the traced .rodata apart, put it with the
   unwinding tables in a segment of its own), and the constructor
   advises it MADV_RANDOM whole: a fault in a mapping that is not
   executable reads a read-ahead window centred on the page, over
   whatever the file holds around it (one such fault of SQLite's shell
   at .schema: 16 pages of cold code and 16 of that data), and with the
   advice the page alone (do_sync_mmap_readahead); the advice leaves
   fault-around as it was, and the segment one mapping, so a warm start
   maps as before (but for a page a window marked for read-ahead before
   the advice: a fault there no longer reads ahead, nor clears the
   mark).  The model (lib/coldstart.c) reads the same
   record; at a cold start what is not yet read is cut as it assumes. */
#ifndef LINKOPT_CUT_H
#define LINKOPT_CUT_H

#include <stdint.h>

/* The record, little-endian as the host: CUT_MAGIC, then the range's
   start and end as byte offsets from the record's own address (signed),
   and the piece size in bytes (piece 0: no cut); then the read-only
   segment to advise MADV_RANDOM, as offsets from the record too (equal:
   none).  Version 1 (CUT_MAGIC_1, linkopt-prefetch.o before 2026-12-07)
   ends after piece: a file linked with it is cut without the advice. */
#define CUT_MAGIC "linkopt cut 2\0\0"    /* 16 bytes with its NULs */
#define CUT_MAGIC_1 "linkopt cut 1\0\0"
#define CUT_SYMBOL "linkopt_cut"
struct cut_record {
	char magic[16];
	int64_t start, end;
	uint64_t piece;
	int64_t random_start, random_end;  /* version 2 */
};
#define CUT_RECORD_1_SIZE 40             /* the record of version 1 */

#ifndef CUT_RECORD_ONLY
#include <stdbool.h>
#include <stddef.h>

struct elf_object;

/* A linked file's cut, as addresses of the file (not offsets). */
struct cut {
	uint64_t start, end, piece;        /* piece 0: none */
	/* the read-only segment advised MADV_RANDOM, page-aligned (equal:
	   none); only with a cut (piece) */
	uint64_t random_start, random_end;
	/* cut_file: the record was of version 1, and the file has a segment
	   that version 2 would have advised */
	bool version_1;
	/* cut_file: the address of the cut's own code (the constructor,
	   linkopt_prefetch, or a part of it) found inside the range, or 0:
	   such a start-up faults a read-ahead window in there before it can
	   cut (the link BOLT rewrote was traced without its record filled,
	   and BOLT left the cut's code cold) */
	uint64_t self_at;
	const char *self_name;             /* which of its names (a constant), or NULL */
};

/* cut_file's piece for one piece: the range a mapping of its own, apart
   from the traced code before it, and not cut further. */
#define CUT_WHOLE UINT64_MAX

/* Fills the record of the linked file at path with the range to cut and
   piece (a multiple of the page size): from the end of its traced code
   (BOLT's __hot_end when it has one, else deporder's script's
   __linkopt_hot_end), rounded up to a page, to the end of the file bytes
   of the executable segment that holds it, rounded down; piece 0 empties
   the record, CUT_WHOLE makes the range one piece.  With to_trace (piece
   unused), the cut of a file to be traced before BOLT rewrites it, so
   that the constructor's cut runs in the traces and BOLT keeps its code
   hot (a cut of BOLT's output that BOLT left cold would run, and fault a
   window in, before it cut): 4 KiB pieces, and when nothing follows the
   traced code in its segment, its last page.  With a cut, a record of
   version 2 also names the read-only segment (neither executable nor
   writable) that holds a section .rodata.untraced, page-aligned, when
   the file has one.  The file is written whole
   to out by the output rule (lib/output.h; out may be path, replaced
   through a temporary file; a new file is executable).  *done: what it
   recorded, and where the cut's own code lies in its range (self_at).
   0, or -1 with *why set and nothing written: not ELF, no record (not
   linked with linkopt-prefetch.o or linkopt-cut.o, or stripped), no end
   of traced code, nothing after it to cut. */
int cut_file(const char *path, const char *out, uint64_t piece, bool to_trace, struct cut *done, char **why);

/* The cut recorded in elf (a linked file opened with elfobj); all 0 when
   it has no record or the record is empty. */
struct cut cut_read(const struct elf_object *elf);
#endif

#endif
