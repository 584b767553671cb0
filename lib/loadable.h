/* loadable: a linked file as the dynamic loader reads it (program headers,
   the dynamic table, the relocations it applies to the data), and the
   proof that a rewritten copy of it (BOLT's output) still loads as it did:

   - the program headers: every PT_LOAD inside the file, its offset and
     address congruent modulo its alignment (a power of two), the PT_LOADs
     in ascending order and apart (no page of memory mapped twice), every
     other segment the loader reads (PT_DYNAMIC, PT_INTERP, PT_PHDR,
     PT_TLS, PT_GNU_RELRO, PT_GNU_EH_FRAME, PT_NOTE) inside a PT_LOAD, the
     entry point in executable code, PT_INTERP as the input's;
   - the dynamic table: every tag of the input present as many times, no
     tag the input has not, and each value still pointing where it should:
     sizes, counts, flags and names equal; the tables (DT_STRTAB, DT_RELR,
     DT_RELA, DT_JMPREL, the hash and version tables) inside the file with
     the input's contents (a relocation's addend may change); DT_INIT,
     DT_FINI and every DT_INIT_ARRAY, DT_FINI_ARRAY, DT_PREINIT_ARRAY slot
     at the entry of the function of the same name;
   - the data: every pointer the loader relocates (DT_RELR, relative
     DT_RELA entries) or the link relocated (--emit-relocs), and every slot
     of .got (a program not linked as PIE keeps addresses there that no
     relocation names), that pointed at
     a function's entry points at the entry of the function of that name,
     any other pointer into code still points into code, a pointer to data
     is unchanged, and no byte of the writable segments changed where no
     relocation lies. */
#ifndef LINKOPT_LOADABLE_H
#define LINKOPT_LOADABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What loadable_compare found. */
struct loadable_report {
	char **defects;        /* one line each, new strings */
	size_t count;
	bool dynamic_damaged;  /* a defect in the dynamic table */
	bool data_damaged;     /* a defect in the relocated data */
	bool input_relr;       /* the input has DT_RELR (-z pack-relative-relocs) */
	bool input_has_interp; /* the input has PT_INTERP (a program, not a library) */
	char *interp;          /* the input's PT_INTERP, or NULL */
};

/* Compares output, the rewritten copy of input (both whole files in
   memory, the input an executable or shared library the host can load),
   as above; fills *report.  0 (report->count defects), or -1 with *why
   set to a new message when either file cannot be read as one. */
int loadable_compare(const void *input, size_t input_size, const void *output, size_t output_size,
		     struct loadable_report *report, char **why);

void loadable_report_free(struct loadable_report *report);

#endif
