/* link: the model of one GNU ld link that deporder reproduces: the input
   tree (files, groups, flags), the units it loads (objects and archive
   members), shared libraries, and the global symbol table. */
#ifndef DEPORDER_LINKMODEL_H
#define DEPORDER_LINKMODEL_H

#include "archive.h"
#include "elfobj.h"
#include "ordering.h"
#include "util.h"

enum input_kind {
	INPUT_FILE,     /* not opened yet */
	INPUT_OBJECT,
	INPUT_ARCHIVE,
	INPUT_SHARED,
	INPUT_GROUP,    /* --start-group ... --end-group, or GROUP() in a script */
	INPUT_SCRIPT,   /* an implicit linker script: its inputs stand in its place */
	INPUT_FAILED,   /* could not be opened (--keep-going) */
};

struct unit;

/* One file of the link, or a group of them (--start-group or GROUP()). */
struct input {
	enum input_kind kind;
	char *path;                 /* as ld would print it */
	char *library;              /* -l NAME not searched yet, or NULL */
	bool search_static;         /* -l under -Bstatic: only lib*.a */
	bool whole_archive, as_needed;
	bool loaded;                /* objects and needed shared libraries: symbols added */
	void *map;                  /* the file's mapping (file-backed inputs) */
	size_t map_size;
	struct archive *archive;    /* INPUT_ARCHIVE */
	struct unit **members;      /* INPUT_ARCHIVE: unit per member, once loaded */
	struct unit *unit;          /* INPUT_OBJECT, INPUT_SHARED */
	struct input **children;    /* INPUT_GROUP */
	size_t child_count, child_capacity;
};

/* An object file or archive member that the link loads, or a shared library. */
struct unit {
	char *name;                 /* path, or archive(member) */
	struct input *input;
	size_t member;              /* index in input->archive when a member */
	bool is_member, is_shared;
	bool loaded;                /* part of the link */
	struct elf_object elf;
	void *map;                  /* thin-archive member mapping, if any */
	size_t map_size;
	size_t load_index;          /* position in the order ld loads units */
	const char *pulled_for;     /* symbol that pulled it in, "--whole-archive", or NULL */
	struct unit *pulled_by;     /* unit whose reference pulled it in; NULL: command line */
	bool *section_discarded;    /* per section: a COMDAT group already linked */
	bool *section_kept;         /* per section: reached (section granularity) */
	bool visited;               /* ordering walk */
};

enum symbol_state {
	SYM_NEW,
	SYM_UNDEFINED,
	SYM_UNDEFWEAK,
	SYM_DEFINED,
	SYM_DEFWEAK,
	SYM_COMMON,
	SYM_DYNAMIC,                /* defined by a shared library */
};

struct symbol_entry {
	const char *name;
	enum symbol_state state;
	struct unit *definition;    /* unit holding the definition in force */
	uint32_t definition_index;  /* its index in that unit's symbols */
	struct unit *first_reference; /* first unit that referenced it */
	bool command_line;          /* -u, --seed or the entry symbol */
	bool referenced_nonweak_regular;
	bool referenced_dynamic;    /* a shared library refers to it */
	bool discarded;             /* only seen in a discarded COMDAT group */
	uint64_t common_size;
};

struct link_options {
	struct input *root;         /* the top-level group of the command line */
	char **undefined;           /* -u, in order */
	size_t undefined_count, undefined_capacity;
	char *entry;                /* -e, or NULL */
	char *output;               /* -o, or NULL */
	bool shared;                /* -shared */
	bool report_undefined_in_shared; /* --no-undefined, -z defs */
	bool ignore_undefined;      /* --unresolved-symbols=ignore-all */
	char **lib_dirs;            /* -L, in order */
	size_t lib_dir_count, lib_dir_capacity;
};

/* A unit of the order: an input section of a unit (section 0: the whole unit). */
struct unit_section {
	struct unit *unit;
	uint32_t section;
};

struct link {
	struct link_options *options;
	char **seeds;
	size_t seed_count;
	bool keep_going;
	int status;                 /* EXIT_OK, or EXIT_INPUT once anything failed */
	struct strmap symbols;      /* name -> struct symbol_entry */
	struct symbol_entry **symbol_list; /* in creation order */
	size_t symbol_count, symbol_capacity;
	uint64_t undefs;            /* entries that ever became undefined or common */
	struct strmap comdat_groups; /* signature -> unit that linked it first */
	struct unit **units;        /* regular units in load order */
	size_t unit_count, unit_capacity;
	struct unit **shared;       /* shared libraries whose symbols were added */
	size_t shared_count, shared_capacity;
};

/* Builds the link's input tree from ld-style arguments; reports unknown
   options once each.  Returns NULL after printing a usage-class error. */
struct link_options *inputs_parse(char **argv, int argc);

/* Opens every file of the tree (expanding linker scripts and -l); returns
   0, or EXIT_INPUT after reporting each failure. */
int inputs_open(struct link_options *options, bool keep_going);

/* Frees the tree, the files it mapped and the units in it (objects,
   shared libraries, archive members); options may be NULL. */
void inputs_free(struct link_options *options);

/* True if arg (starting with -) names an ld option deporder knows of. */
bool inputs_known_option(const char *arg);

/* True if the linker itself defines name (its default script's symbols,
   _GLOBAL_OFFSET_TABLE_, __ehdr_start...). */
bool inputs_linker_defines(const char *name);

/* No warnings about skipped ld options. */
extern bool inputs_quiet;

/* The linker whose default script gives the library search path and the
   linker-defined symbols: the one the compiler driver runs; NULL: $LD or ld. */
extern const char *inputs_linker;

/* Opens the files of one group or script (recursively). */
int inputs_open_children(struct input *group, struct link_options *options);

/* Runs GNU ld's symbol resolution and archive extraction over the inputs. */
void closure_run(struct link *link);

/* Looks up a symbol; NULL if the link never saw it. */
struct symbol_entry *closure_symbol(struct link *link, const char *name);

/* The unit defining name (a regular unit, not a shared library), or NULL. */
struct unit *closure_definer(struct link *link, const char *name);

/* Loads relocations of every regular unit; returns 0 or EXIT_INPUT. */
int closure_load_relocs(struct link *link);

/* Marks the input sections ld keeps under --gc-sections (unit->section_kept). */
void sections_mark(struct link *link);

/* Resolves a relocation of u to the (unit, section) it reaches, through the
   link's symbol table for global symbols; false if it reaches no section. */
bool sections_reloc_target(struct link *link, struct unit *u, const struct elf_reloc *r,
			   struct unit **target_unit, uint32_t *target_section);

/* True if the section is a unit of the section-granularity order. */
bool sections_is_unit(const struct unit *u, uint32_t section);

enum output_format { FORMAT_LIST, FORMAT_MEMBERS, FORMAT_JSON };

/* A string naming one section of one unit, for hash tables (newly allocated). */
char *unit_section_key(const struct unit *u, uint32_t section);

/* The final order: the hot_count hot sections first (those traces
   touched), then the dependency order of the rest; by_section false gives
   whole units (section 0).  every_section (with by_section): then the
   sections --gc-sections would drop too, in the order ld loads their
   units, so that the order names every input section of the link.
   *count set. */
struct unit_section *order_compute(struct link *link, const struct unit_section *hot, size_t hot_count,
				   bool by_section, bool every_section, size_t *count);

/* The order (count entries, section 0: a whole unit; the first hot of
   them traced, all at the head: head_end = hot) as the emitters read it,
   with a copy of provenance and the order's names that a shared library
   of the link defines too.  Free it with ordering_free. */
struct ordering *order_record(struct link *link, const struct unit_section *order, size_t count, size_t hot,
			      const char *provenance);

/* Prints the units in dependency order, the hot_count hot sections first. */
void order_print(struct link *link, const struct unit_section *hot, size_t hot_count, enum output_format format,
		 bool by_section);

/* Prints the chain of references that pulled in a unit or symbol; returns 0,
   or EXIT_INPUT if the name is not part of the link. */
int order_why(struct link *link, const char *what, bool by_section);

/* The linker program the compiler driver cc runs (cc -print-prog-name=ld);
   ld, after a warning, when cc fails to say. */
char *ccdriver_linker(const char *cc);

/* Runs the compiler driver with -### and returns its linker arguments
   (argv[0] excluded) as a NULL-terminated array; NULL after an error. */
char **ccdriver_link_args(char **cc_argv, int *argc_out);

#endif
