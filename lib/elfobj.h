/* elfobj: libelf wrapped once into plain structs: an ELF file (relocatable
   object or shared library) with its sections, symbols, relocations and
   symbol versions, and lookups by name (hashed) and by address (sorted),
   each built on first use.  Every libelf call is checked; failures come
   back as a message naming the call, never as a crash. */
#ifndef LINKOPT_ELFOBJ_H
#define LINKOPT_ELFOBJ_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct elf_reloc {
	uint64_t offset;
	uint32_t symbol; /* index into the object's symbols */
	uint32_t type;
	int64_t addend;
};

struct elf_section {
	const char *name;
	uint32_t index, type, link, info;
	uint64_t flags, size, addralign, offset;
	uint64_t address;        /* sh_addr: where a linked file loads it, 0 in an object */
	uint32_t group;          /* index of the SHT_GROUP section holding it, or 0 */
	uint32_t group_flags;    /* SHT_GROUP: its flag word (GRP_COMDAT) */
	struct elf_reloc *relocs; /* relocations applying to this section, by offset */
	size_t reloc_count;
};

struct elf_symbol {
	const char *name;
	uint64_t value, size;
	uint32_t shndx;          /* section index, SHN_UNDEF, SHN_COMMON, SHN_ABS */
	unsigned char bind, type, visibility;
	const char *version;     /* symbol version name in a shared library, or NULL */
	bool version_hidden;     /* non-default version (name@VER, not name@@VER) */
};

/* A program header of a linked file. */
struct elf_segment {
	uint32_t type;           /* PT_* */
	uint32_t flags;          /* PF_R, PF_W, PF_X */
	uint64_t offset;         /* p_offset: where its bytes start in the file */
	uint64_t address;        /* p_vaddr */
	uint64_t file_size;      /* p_filesz: bytes from the file; the rest of memory_size is zeroed */
	uint64_t memory_size;    /* p_memsz */
	uint64_t align;          /* p_align */
};

struct elf_object {
	const char *name;        /* for messages: path or archive(member) */
	void *elf;               /* Elf *, opaque outside elfobj.c */
	int elf_class;           /* ELFCLASS32 or ELFCLASS64 */
	uint16_t type, machine;  /* ET_REL / ET_DYN, EM_* */
	uint64_t entry;          /* e_entry: 0 in a shared library */
	struct elf_section *sections;
	size_t section_count;
	struct elf_symbol *symbols; /* .symtab, or .dynsym for a shared library */
	size_t symbol_count;
	size_t first_global;     /* index of the first non-local symbol */
	const char *soname;
	const unsigned char *image; /* the file's bytes */
	size_t image_size;
	bool relocs_loaded;
	struct elf_index *index;  /* lookups by name and address, built on first use */
};

/* Target the link is for: the host's machine and class. */
extern const uint16_t elfobj_host_machine;
extern const int elfobj_host_class;

/* Returns true if the bytes start with the ELF magic. */
bool elfobj_is_elf(const void *data, size_t size);

/* Reads an ELF relocatable object or shared library from memory (which must
   outlive obj).  Returns 0, or -1 with *why set to a newly allocated message.
   Refuses other machines and classes, executables, and LTO-only objects. */
int elfobj_open(struct elf_object *obj, const char *name, void *data, size_t size, char **why);

/* Like elfobj_open, for a linked executable or shared library whose
   addresses are to be resolved: reads .symtab (or .dynsym without it). */
int elfobj_open_linked(struct elf_object *obj, const char *name, void *data, size_t size, char **why);

/* The program headers of a linked file, in file order (a new array of
   *count; NULL with *count 0 when it has none), with the bytes they take
   in the file (*table_offset, *table_size); NULL with *why set (newly
   allocated) when one cannot be read or a PT_LOAD one lies outside the
   file. */
struct elf_segment *elfobj_segments(const struct elf_object *obj, size_t *count, uint64_t *table_offset,
				    uint64_t *table_size, char **why);

/* Writes the GNU build-id as hex into hex; false if the file has none. */
bool elfobj_build_id(const struct elf_object *obj, char *hex, size_t hex_size);

/* Where the GNU build-id's bytes are in the file: *offset and *size;
   false if the file has none. */
bool elfobj_build_id_place(const struct elf_object *obj, uint64_t *offset, size_t *size);

/* Reads the relocation sections into their target sections' relocs; returns
   0, or -1 with *why set. */
int elfobj_load_relocs(struct elf_object *obj, char **why);

/* Checks that elf, an Elf * opened elsewhere (libdwfl's), is an executable
   or shared library for this machine, as elfobj_open_linked does; returns
   0, or -1 with *why set to a newly allocated message. */
int elfobj_check_linked(void *elf, char **why);

/* The name of section index of elf, an Elf * opened elsewhere, or NULL. */
const char *elfobj_section_name(void *elf, size_t index);

/* Index of the first section named name, or 0 (a hash lookup). */
uint32_t elfobj_section_by_name(const struct elf_object *obj, const char *name);

/* Index of the next section after section with the same name, or 0. */
uint32_t elfobj_section_next_named(const struct elf_object *obj, uint32_t section);

/* Index of the first symbol named name, or 0 (a hash lookup). */
uint32_t elfobj_symbol_by_name(const struct elf_object *obj, const char *name);

/* Index of the next symbol after symbol with the same name, or 0. */
uint32_t elfobj_symbol_next_named(const struct elf_object *obj, uint32_t symbol);

/* The function symbols (STT_FUNC, STT_GNU_IFUNC, defined in a section)
   whose entry is address, global names first, then in table order; *count
   set, NULL if none.  address is an offset in section in a relocatable
   object, and a virtual address otherwise (section is then ignored). */
const struct elf_symbol *const *elfobj_functions_at(const struct elf_object *obj, uint32_t section, uint64_t address,
						    size_t *count);

/* The first of elfobj_functions_at, or NULL. */
const struct elf_symbol *elfobj_function_at(const struct elf_object *obj, uint32_t section, uint64_t address);

/* The function symbol whose body holds address (one without a size holds
   its entry alone), or NULL; address as for elfobj_functions_at. */
const struct elf_symbol *elfobj_function_containing(const struct elf_object *obj, uint32_t section,
						    uint64_t address);

/* Finds the section called name in the ELF file image of any type
   (object, LTO object, executable, shared library) and sets *contents and
   *contents_size to its bytes inside image (NULL and 0 when the file has
   no such section or it takes no bytes in the file).  Returns 0, or -1
   with *why set to a newly allocated message when image is not an ELF
   file libelf can read. */
int elfobj_find_section(const void *image, size_t size, const char *name, const void **contents,
			size_t *contents_size, char **why);

/* The PT_LOAD program headers of obj (a file elfobj_open_linked read), in
   the order of the table, into a new array *segments of *count; a file
   without any gives none.  Returns 0, or -1 with *why set to a newly
   allocated message naming the failing call, or saying which segment
   lies outside the file. */
int elfobj_load_segments(const struct elf_object *obj, struct elf_segment **segments, size_t *count, char **why);

/* Releases what elfobj_open and elfobj_load_relocs allocated. */
void elfobj_close(struct elf_object *obj);

#endif
