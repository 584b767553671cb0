/* hot: the ordering state traces give a link: the input sections of the
   closure the traced runs touched, those every trace touched first, each
   trace's record mapped to its input section through the traced binary's
   link map, and how much of each trace still matched the link. */
#ifndef DEPORDER_HOT_H
#define DEPORDER_HOT_H

#include "linkmodel.h"
#include "ldmap.h"
#include "trace.h"

/* The input sections one trace touched, in first-touch order. */
struct hot_sequence {
	struct unit_section *items;
	size_t count, capacity;
};

/* How one trace's records matched the link (report_match's figures). */
struct hot_match_stats {
	char *trace;                /* the trace file */
	char *object;               /* the traced object ordered */
	size_t records, matched, common, linker, stale, renamed, outside;
	double rate;                /* the share counted as matched */
};

struct hot_order {
	bool first_touch_only;      /* order traced sections by first touch alone */
	bool order_data;            /* data the hot code refers to goes first too */
	const double *trace_weights; /* per trace (--weight), or NULL: all 1 */
	struct unit_section *sections; /* touched first, in this order */
	size_t count, capacity;
	uint64_t text_start;        /* where .text began in the traced link */
	double match_rate;          /* the lowest share of a trace's records matched */
	struct hot_sequence *sequences; /* per trace */
	size_t sequence_count, sequence_capacity;
	struct hot_match_stats *stats;  /* per trace, as reported */
	size_t stats_count, stats_capacity;
};

/* The traced program's link map, read against the closure. */
struct hot_map {
	struct ldmap map;
	struct strmap units;        /* unit name -> struct unit */
};

/* Reads the map at path and indexes the link's units by name; returns 0,
   or -1 with *why set (newly allocated).  A file the map names otherwise
   than the link does (mold writes "dir/../x.o" as "x.o") is renamed in
   the map to the unit's name. */
int hot_map_read(struct hot_map *map, const struct link *link, const char *path, char **why);

/* The input section of the link that the map's section s is (same unit,
   name and size, a unit of the order): true with *us set; false if the
   link has none (a stale trace or map, or a section the linker made). */
bool hot_map_section(const struct hot_map *map, const struct ldmap_section *s, struct unit_section *us);

/* Frees what hot_map_read allocated. */
void hot_map_free(struct hot_map *map);

/* One --trace, read once, with the object of it that is ordered. */
struct traced_run {
	const char *path;
	struct trace trace;
	const struct trace_object *object;
};

/* What the ordering is computed from: the traced binary's map and the
   traces of it. */
struct hot_inputs {
	struct hot_map map;
	struct traced_run *runs;
	size_t count;
	char *binary_path;          /* the binary the map describes and the traces are of */
};

/* Reads the map at map_path and each trace (pagein or cygtrace files) of
   the binary linked with it, and proves they belong together
   (binding_check: binary_path, or the map's output, is the traced object
   of every trace); returns 0, or EXIT_INPUT after reporting every input
   that cannot be read or does not belong. */
int hot_inputs_read(struct hot_inputs *in, const struct link *link, char **traces, size_t trace_count,
		    const char *map_path, const char *binary_path, const char *object_glob);

/* Frees what hot_inputs_read allocated. */
void hot_inputs_free(struct hot_inputs *in);

/* Maps the records of the traces to input sections of the closure and
   fills hot->sections, text_start, match_rate and sequences, in hot's
   settings; reports the match rate on stderr.  Returns 0, or EXIT_INPUT
   when fewer than min_match of a trace's records match (naming what went
   missing). */
int hot_from_traces(struct hot_order *hot, struct link *link, const struct hot_inputs *in, double min_match);

/* Adds to hot->sections the data input sections (.rodata*, .data*, .bss*)
   the hot code refers to through its relocations, in the order the hot
   code first refers to them: the data a traced start-up most likely
   touches; with strings, then the merged strings (.rodata.str1.1 and the
   like) that the hot data sections refer to.  Needs the relocations
   loaded. */
void hot_add_data(struct hot_order *hot, struct link *link, bool strings);

/* Adds to record lld's call graph from the traces alone: consecutive first
   touches of a trace (functions; data skipped over) as caller and callee,
   weighted by how often the pair occurs. */
void hot_add_edges(const struct hot_order *hot, struct ordering *record);

/* Warns when most of the traced code sections are whole .text sections
   holding several functions (objects built without -ffunction-sections):
   the order cannot separate the functions that ran from the others. */
void hot_warn_whole_objects(const struct hot_order *hot);

/* True if the section goes to the head of .text: code in a .text* section. */
bool hot_bound_for_text(const struct unit_section *us);

#endif
