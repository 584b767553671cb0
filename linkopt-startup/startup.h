/* startup: the one start-up pipeline of the toolkit (trace -> order ->
   relink -> measure), which linkopt-startup runs and which mk/startup.mk,
   the CMake module, the benchmarks and the demo reach through it.  Its
   modules share the job (what was asked) and the outputs (what is
   ordered): link (records, relinks, build-ids), run (the workload under
   pagein and natively), order (deporder's command line, made here and
   nowhere else, and each linker's flags), bolt (linkopt-bolt on the
   ordered link), state (what an order was made from), measure (the pages
   a trace shows) and verify (is an order still what it was). */
#ifndef LINKOPT_STARTUP_H
#define LINKOPT_STARTUP_H

#include "trace.h"

#include <glob.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

enum startup_linker { LINKER_GNU_LD, LINKER_GOLD, LINKER_LLD, LINKER_MOLD };

/* PLACEMENT_BEST: the search (search.c) chooses among the others. */
enum startup_placement { PLACEMENT_HEAD, PLACEMENT_COLD_START, PLACEMENT_DATA_FIRST, PLACEMENT_BEST };

/* The names the options and the files use, indexed by the enums above. */
extern const char *const startup_linker_names[];
extern const char *const startup_placement_names[];

/* The programs and the object the pipeline runs and links. */
struct startup_tools {
	char *pagein, *deporder, *prefetch, *cut, *bolt, *pfstat;
};

/* What linkopt-startup was asked to do. */
struct startup_job {
	const char *dir;                  /* the records' folder, absolute */
	enum startup_linker linker;
	enum startup_placement placement;
	const char *read_ahead_kb;        /* as given, or NULL: deporder's default */
	const char *untraced_segment_kb;  /* deporder's --untraced-segment-kb, as given, or NULL */
	bool relr;                        /* link with -z pack-relative-relocs */
	bool bolt;                        /* rewrite the ordered link with linkopt-bolt */
	const char *bolt_program;         /* linkopt-bolt --bolt, or NULL */
	bool trace_children, report;
	const char *check;                /* a shell line that must print the same ordered, or NULL */
	char **workload;                  /* the start-up command, NULL-terminated */
	bool progress;                    /* say each step on stderr */
	const char *again;                /* what to run for a new order, for messages */
	struct startup_tools tools;
};

enum { BUILD_PLAIN, BUILD_ORDERED };

/* One output to order: a program or shared library linkopt-cc recorded. */
struct startup_output {
	const char *name;
	char **record_strings;            /* the record's strings (freed with it) */
	const char *path, *cwd;           /* the output, the folder its link ran in */
	char **argv;                      /* the recorded link command */
	char *map, *order, *plain, *state, *bolt_trace;
	char build_id[2][128];            /* of the plain and of the ordered link */
	bool keep_time;                   /* the output was newer than its inputs */
	struct timespec time;             /* its modification time then */
};

/* One run of the workload under pagein: its traces and its stdout. */
struct startup_run {
	glob_t files;
	struct trace *traces;
	char *out;
};

/* step: "linkopt-startup: " and the message on stderr when job->progress. */
void startup_step(const struct startup_job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* link.c */
/* The order file of o for the job's linker and placement: a new string. */
char *order_path(const struct startup_job *job, const char *name);

/* Finds pagein, deporder, linkopt-prefetch.o and linkopt-bolt beside this
   program (installed) or in the build tree; dies naming what is missing. */
void link_find_tools(struct startup_job *job);
/* Dies unless the job's linker (gold, lld, mold) has its order option. */
void link_check_linker(const struct startup_job *job);
/* Loads output name's record from the job's folder; dies when there is none. */
void link_load(const struct startup_job *job, struct startup_output *o, const char *name);
/* The flags every link of the job adds (relr, --emit-relocs for BOLT);
   NULL-terminated, static strings. */
char **link_job_flags(const struct startup_job *job);
/* Links o's recorded command with extra (NULL-terminated) into path, through
   path.linkopt-tmp and a rename; dies on failure.  what names the link. */
void link_to(const struct startup_job *job, const struct startup_output *o, const char *path, char **extra,
	     const char *what);
/* link_to, but false with *why set (a new message) when the link fails. */
bool link_try(const struct startup_job *job, const struct startup_output *o, const char *path, char **extra,
	      const char *what, char **why);
/* Copies the file from onto o's output (temporary file and rename), keeping
   the output's time when it was newer than its inputs. */
void link_install(const struct startup_output *o, const char *from);
/* The GNU build-id of the linked file path into hex; dies without one. */
void link_build_id(const char *path, char *hex, size_t size);
/* Whether o->path now has the build-id hex. */
bool link_has_build_id(const struct startup_output *o, const char *hex);

/* "program", "static program", "PIE" or "shared library": how the file at
   path is linked; NULL when it is not a linked ELF file. */
const char *link_kind(const char *path);
/* Dies unless every object (and archive member) o's link reads that records
   its options (-frecord-gcc-switches, as pgo-run has every build do) was
   compiled with -fprofile-use, and one at least. */
void link_check_pgo_built(const struct startup_output *o);

/* run.c */
/* Makes every run of the workload read all of standard input: a file is
   read from its start each time, a pipe is kept in a file first. */
void run_prepare_stdin(const struct startup_job *job);
/* Sets request, a run of a workload (traced, natively with its page
   faults recorded, measured by pfstat, timed), to read standard input from its start.
   Every run of a workload gets the same streams, so that the program
   takes the same path in each (Python's FileIO.seekable runs its .cold
   part when a stream is a pipe): standard input the job's
   (run_prepare_stdin), standard output and error a file or /dev/null,
   never a terminal or a pipe; the caller sets those. */
struct proc_request;
void run_workload_streams(struct proc_request *request);
/* Runs the workload under pagein into DIR/FIRST.KIND{trace,traces}, its
   stdout into DIR/FIRST.KIND.out; with branches, pagein's --branches. */
void run_traced(const struct startup_job *job, struct startup_run *run, const char *first, const char *kind,
		bool branches);
/* Frees a run. */
void run_free(struct startup_run *run);
/* The first object of the run's traces with build-id hex, or NULL. */
const struct trace_object *run_object(const struct startup_run *run, const char *hex);
/* Runs the job's check line natively, its stdout into out; returns its
   status. */
int run_check(const struct startup_job *job, const char *out);
/* Whether the files a and b hold the same bytes. */
bool run_same_output(const char *a, const char *b);

/* native.c */
/* Names of functions of one output, in the order first seen. */
struct native_set {
	char **names;
	size_t count, capacity;
};
/* Adds name to set unless it is there. */
void native_add(struct native_set *set, const char *name);
void native_free(struct native_set *set);
/* Runs workload line natively (every page fault recorded, with its
   address) with the files now in place of the n outputs, and adds to
   sets[i] each function of output i an instruction faulted in that none
   of run's traces (of the same line, same files) entered.  -1 with *why
   (new) when the run fails, -2 when its faults could not be recorded
   (lib/faultrec.h). */
int native_find(const struct startup_job *job, const struct startup_output *outputs, size_t n, const char *line,
		const struct startup_run *run, struct native_set *sets, char **why);
/* Virtual addresses of pages of one output's link, in the order of a run. */
struct native_pages {
	uint64_t *addresses;
	size_t count, capacity;
};
/* Runs workload line natively NATIVE_RUNS times, its page faults
   recorded, with the files now in place of the n outputs, and appends to pages[i] each page
   of output i's file that most of the runs faulted in (a fault comes once
   per page, and the kernel maps 64 KiB around it: a subset of what the
   run touched), in the order of the first run that did; the third run
   is not made when the first two faulted in the same pages (it could
   change neither).  -1 with *why (new) when a run fails, -2 when its
   faults could not be recorded. */
#define NATIVE_RUNS 3
int native_fault_pages(const struct startup_job *job, const struct startup_output *outputs, size_t n,
		       const char *line, struct native_pages *pages, char **why);
/* Writes at path (a temporary file, renamed; nothing when none of set is
   found) a pagein trace with branches of the linked file binary as run
   from run_path: for each function of set (a cold part "F.cold.N" stands
   for F, and F's gcc-made F.cold goes with it) its entry (F record) and
   every block of it run once (R and B records, from objdump's
   disassembly), so that BOLT, given it, counts none of them cold.
   Returns how many functions; -1 with *why (new). */
long native_profile_write(const char *path, const char *binary, const char *run_path, const struct native_set *set,
			  char **why);
/* Drops from set the functions binary does not define (a cold part
   "F.cold.N" counts as F). */
void native_keep_defined(const char *binary, struct native_set *set);

/* order.c */
/* Orders o with deporder from the run's traces that hold its plain link,
   into o->order; dies when the workload did not run it. */
void order_make(const struct startup_job *job, struct startup_output *o, const struct startup_run *run);
/* order_make, but returns deporder's status rather than dying when it fails
   (its messages on stderr). */
int order_make_checked(const struct startup_job *job, struct startup_output *o, const struct startup_run *run);
/* The flags that link o with its order, for the job's linker
   (NULL-terminated, new strings). */
char **order_flags(const struct startup_job *job, const struct startup_output *o);

/* bolt.c */
/* Rewrites the ordered o with linkopt-bolt from the run (pagein
   --branches on the ordered link), checked with the job's check line or
   the workload; replaces o's output with the result.  Dies on failure,
   leaving the ordered link in place. */
void bolt_rewrite(const struct startup_job *job, struct startup_output *o, const struct startup_run *run);

/* keep.c */
/* Removes DIR/NAME.SUFFIX, a record that no longer holds. */
void keep_remove(const struct startup_job *job, const struct startup_output *o, const char *suffix);
/* Keeps the order for the build's later links of o (linkopt-cc reads
   DIR/NAME.apply): flags (NULL-terminated) and the job's link flags. */
void keep_apply(const struct startup_job *job, const struct startup_output *o, char **flags);
/* Keeps the size and time of each file o's link reads (DIR/NAME.inputs),
   for linkopt-cc to tell a later link whose inputs changed. */
void keep_inputs(const struct startup_job *job, const struct startup_output *o);
/* Keeps the rewrite of the ordered link (DIR/NAME.rewrite). */
void keep_rewrite(const struct startup_job *job, const struct startup_output *o, const char *ordered,
		  const char *rewritten);
/* The workload (and check) as one line, for the state and messages. */
char *keep_workload_line(const struct startup_job *job);

/* state.c */
/* What an order was made from and what it gave, kept in DIR/NAME.state. */
struct startup_state {
	char *layout;                     /* "gnu-ld", "gnu-ld/cold-start", ... "+relr", "+bolt" */
	char *workload;                   /* the command, as one line */
	char *plain_id, *ordered_id;
	char *code_before, *code_after;   /* start-up code pages, or "" when not measured */
	char *chosen;                     /* --placement=best: the layout chosen, else "" */
	char *order;                      /* the order file of the ordered link */
	char *order_placement;            /* its placement: head, cold-start, data-first */
	bool order_relr;                  /* linked with -z pack-relative-relocs */
	char *traces;                     /* the traces it was made from, one a line; "": DIR/NAME.trace */
};
/* The job's layout in words: linker, placement (and the read-ahead of
   cold-start), +relr, +bolt: what the order is made for. */
char *state_layout(const struct startup_job *job);
/* Reads o's state; false when there is none (or it is unreadable: *why set). */
bool state_read(const struct startup_output *o, struct startup_state *st, char **why);
/* Writes o's state whole. */
void state_write(const struct startup_output *o, const struct startup_state *st);
/* Frees what state_read allocated. */
void state_free(struct startup_state *st);

/* measure.c */
/* The distinct pages of the object with build-id hex that events of kind
   touched over the run's traces. */
size_t measure_pages(const struct startup_run *run, const char *hex, enum trace_kind kind);
/* Prints the report table of the outputs, plain (before) and ordered (after). */
void measure_report(const struct startup_output *outputs, size_t n, const struct startup_run *before,
		    const struct startup_run *after);

/* search.c */
/* What --placement=best searches with. */
struct search_options {
	const char *const *train;         /* the workloads the orders are made from and chosen by */
	size_t train_count;
	const char *const *held;          /* workloads scored and shown, never used to choose */
	size_t held_count;
	const char *steady;               /* a steady-state workload timed, or NULL */
	unsigned long read_ahead_kb;      /* the model's and the measurement's */
	bool no_relr, no_bolt, no_segments, quiet;
	bool no_cut;                      /* no +cut candidate */
	bool no_cross;                    /* the best of each kind not made again without each
					     training workload (cross) */
	bool measure_all;                 /* a real cold start of every candidate scored */
	unsigned long request_pages;      /* a read request costs as much as this many pages
					     read: candidates ranked by pages + request_pages
					     x requests (0: by pages alone) */
};
/* Searches the layouts for the outputs, prints the table of every one
   tried and the one chosen, which replaces the outputs and is kept as an
   order (apply, inputs, rewrite, state); returns the exit status. */
int search_best(struct startup_job *job, struct startup_output *outputs, size_t n, const struct search_options *so);

/* verify.c */
/* linkopt-startup --verify: each output is still the ordered link, its
   order still what its trace, map and inputs give, and the start-up's code
   pages have not grown past tolerance percent; returns 0, or 1 after
   saying what is stale. */
int verify_outputs(struct startup_job *job, struct startup_output *outputs, size_t n, unsigned long tolerance);

#endif
