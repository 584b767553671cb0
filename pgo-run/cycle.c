#include "cycle.h"
#include "bench.h"
#include "build.h"
#include "compiles.h"
#include "files.h"
#include "jobs.h"
#include "merge.h"
#include "proc.h"
#include "steps.h"
#include "switches.h"
#include "train.h"
#include "tree.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What one cycle carries from stage to stage. */
struct cycle {
	struct session s;
	struct switches plain, gen;      /* the options the plain and instrumented builds recorded */
	char *profile;                   /* the new profile folder, not yet in use */
	struct store_meta meta;          /* what it holds */
	struct bench_copy bench_plain, bench_pgo;
	bool instrumented;               /* the instrumented build's outputs may be in the tree */
	struct compiles gen_outputs;     /* what the instrumented build wrote */
	long gen_started;                /* when it began */
};

/* Whether the cycle trains: pgo-run build never does, and needs a profile
   in use (*ok false, with a message, without one); with --retrain-if-stale
   not while no source changed since that profile's training. */
static bool needs_training(const struct session *s, bool *ok)
{
	const struct pgo_options *o = s->options;
	struct store_meta meta;
	char *why = NULL, *profile;
	bool have, train = true;
	size_t changed;

	*ok = true;
	if (!o->no_train && !o->retrain_if_stale)
		return true;
	profile = store_profile_path(&s->store);
	have = store_meta_read(profile, &meta, &why) == 0;
	free(why);
	if (o->no_train) {
		train = false;
		if (!have) {
			error("%s: no profile to build with: run pgo-run WORKLOAD first", profile);
			*ok = false;
		} else if (steps_stale_sources(&meta)) {
			warn("sources changed since training: expect coverage-mismatch warnings");
		}
	} else if (have) {
		changed = steps_stale_sources(&meta);
		if (changed == 0) {
			steps_step("profile", "fresh (trained %s ago, no source changed): not retraining",
				    steps_age(time(NULL) - meta.trained));
			train = false;
		} else {
			if (steps_sources_unknown(&meta))
				steps_step("profile", "no source recorded at training: retraining");
			else
				steps_step("profile", "%zu source%s changed since training: retraining", changed,
					    changed == 1 ? "" : "s");
		}
	}
	store_meta_free(&meta);
	free(profile);
	return train;
}

/* Refuses an instrumented build (compiled with the plain build's options)
   that optimized nothing (-O0, or no -O): gcc uses a profile only in the
   passes that optimize, so the optimized build would be the plain one;
   warns about the outputs that did not. */
static bool optimizes(const struct session *s, const struct switches *gen)
{
	const char *names[3];
	size_t n = switches_unoptimized(gen, names, 3), shown = n < 3 ? n : 3;
	char *list;

	if (n == 0)
		return true;
	list = xasprintf("%s%s%s%s%s%s", names[0], shown > 1 ? ", " : "", shown > 1 ? names[1] : "",
			 shown > 2 ? ", " : "", shown > 2 ? names[2] : "", n > shown ? ", ..." : "");
	if (n == gen->count) {
		error("the instrumented build compiled without optimization (-O0, or no -O: %s): %s uses a "
		      "profile only when it optimizes, so a PGO build would run as the plain one; build at -O1 "
		      "or more (make CFLAGS='-O2 -g', meson --buildtype=release, CMAKE_BUILD_TYPE=Release)", list,
		      s->family == FAMILY_CLANG ? "clang" : "gcc");
		free(list);
		return false;
	}
	warn("%zu output%s compiled without optimization (-O0, or no -O), which the profile cannot speed up: %s",
	     n, n == 1 ? "" : "s", list);
	free(list);
	return true;
}

/* The instrumented build, the training runs in a scratch folder and the
   merge of what they wrote into a new profile folder (not yet in use). */
static bool train(struct cycle *c)
{
	struct session *s = &c->s;
	char *why, *raw = store_new_scratch(&s->store, &why);
	bool ok = false;

	if (!raw)
		fatal("%s", why);
	/* data that programs of an earlier instrumented build wrote belongs to
	   notes this build replaces */
	if (files_remove(s->gen_data, &why) < 0 || files_make_dir(s->gen_data, &why) < 0)
		fatal("%s", why);
	c->gen_started = time(NULL);
	tree_mark(s, c->gen_started);
	c->instrumented = true;
	if (build_run(s, BUILD_GENERATE, s->gen_dir, &c->gen_started, &c->gen_outputs)) {
		switches_read(&c->gen_outputs, s->gen_dir, &c->gen);
		ok = train_run(s, raw) &&
		     (c->profile = merge_prepare(s, raw, c->gen_started, &c->gen_outputs, &c->meta)) != NULL;
	}
	if (files_remove(raw, &why) < 0) {
		warn("%s", why);
		free(why);
	}
	free(raw);
	return ok;
}

/* Compares the options build recorded with the plain build's, printing the
   outcome; false when they differ beyond the profile flags. */
static bool same_options(const struct cycle *c, const struct switches *build, const char *name, const char *dir)
{
	size_t compared, differ = switches_compare(build, name, dir, &c->plain, c->s.use_dir, &compared);

	if (differ) {
		error("the %s did not compile with the plain build's options: pgo-run only adds the profile "
		      "flags, so the build changed the project's own (see pgo-run(1))", name);
		return false;
	}
	if (compared == 0)
		warn("no output of the %s recorded its options beside the plain build's: cannot check that "
		     "the %s kept the project's flags", name, name);
	else
		steps_step("options", "%s: the %zu output%s it shares with the plain build %s its options, the "
			    "profile flags aside", name, compared, compared == 1 ? "" : "s",
			    compared == 1 ? "has" : "have");
	return true;
}

/* The reference for the option checks: the plain build, run when the
   cycle trains or benchmarks or no earlier one was recorded, else the
   record of the last.  With --bench its program is kept aside. */
static bool plain_options(struct cycle *c, bool train_now)
{
	struct session *s = &c->s;
	const struct pgo_options *o = s->options;
	char *record = xasprintf("%s/plain-options", s->store.config), *why = NULL;
	struct compiles plain;
	long started;
	bool ok = false;

	if (!train_now && !o->bench && switches_load(record, &c->plain, &why) == 0) {
		steps_step("options", "the plain build's, recorded in %s", record);
		free(record);
		return true;
	}
	free(why);
	why = NULL;
	if (build_run(s, BUILD_PLAIN, s->use_dir, &started, &plain)) {
		switches_read(&plain, s->use_dir, &c->plain);
		if (switches_save(&c->plain, record, &why) < 0) {
			error("%s", why);
			free(why);
		} else {
			ok = !o->bench || bench_keep(s, "plain", &plain, started, &c->bench_plain);
		}
	}
	compiles_free(&plain);
	free(record);
	return ok;
}

/* The optimized build and its checks; the tree then holds no instrumented
   build of ours. */
static int optimized(struct cycle *c)
{
	struct session *s = &c->s;
	struct compiles use;
	struct switches use_options;
	long started;
	int status = build_optimized(s, &use, &started);

	if (use.commands > 0) {
		tree_unmark(s);
		c->instrumented = false;
	}
	if (status == 0) {
		switches_read(&use, s->use_dir, &use_options);
		if (!same_options(c, &use_options, "optimized build", s->use_dir))
			status = 1;
		switches_free(&use_options);
	}
	if (status == 0 && s->options->bench && !bench_keep(s, "pgo", &use, started, &c->bench_pgo))
		status = 1;
	compiles_free(&use);
	return status;
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "a signal";
	}
}

static void print_total(const struct session *s, int status)
{
	double own = proc_now() - s->start - s->external;
	/* in whole hundredths, so that the total printed is the sum of the two
	   parts printed, and the share follows from them */
	long external = (long)(s->external * 100 + 0.5), itself = own > 0 ? (long)(own * 100 + 0.5) : 0;
	long total = external + itself;
	int sig = proc_interrupted();

	steps_step("total", "%ld.%02ld s: builds, workloads and benchmark %ld.%02ld s, pgo-run itself %ld.%02ld s "
		    "(%.1f%% of the total)", total / 100, total % 100, external / 100, external % 100, itself / 100,
		    itself % 100, total > 0 ? 100.0 * itself / total : 0.0);
	if (sig)
		steps_step("total", "interrupted by %s; the profile in use is %s", signal_name(sig),
			    store_has_profile(&s->store) ? "the last good one" : "none");
	else if (status)
		steps_step("total", "failed; the profile in use is %s",
			    store_has_profile(&s->store) ? "the last good one" : "none");
}

/* After a failed or interrupted cycle: nothing instrumented stays in the
   tree looking like a normal build, and no unfinished profile folder
   stays in the store. */
static void clean_up(struct cycle *c)
{
	char *why;

	if (c->profile && files_remove(c->profile, &why) < 0) {
		warn("%s", why);
		free(why);
	}
	if (c->instrumented) {
		size_t removed = tree_remove_instrumented(&c->s, &c->gen_outputs, c->gen_started);

		c->instrumented = false;
		if (removed)
			steps_step("total", "removed the %zu output%s of the instrumented build still in the tree: "
				    "build again for a plain build", removed, removed == 1 ? "" : "s");
	}
}

/* The cycle running, while one does: a fatal() (it calls exit) on the way
   still removes the instrumented build it left in the tree. */
static struct cycle *running_cycle;

static void clean_up_at_exit(void)
{
	struct cycle *c = running_cycle;

	/* once: a fatal() in here must not come back */
	running_cycle = NULL;
	if (c && c->instrumented)
		clean_up(c);
}

int cycle_run(const struct pgo_options *o)
{
	struct cycle c;
	bool train_now, ok;
	int status = 1, sig;
	size_t removed;
	char *why;

	memset(&c, 0, sizeof(c));
	if (!train_check(o))
		return 1;
	if (atexit(clean_up_at_exit) == 0)
		running_cycle = &c;
	proc_catch_interrupts();
	if (!session_open(&c.s, o, true)) {
		session_close(&c.s);
		return 1;
	}
	if (!session_lock_project(&c.s)) {
		session_close(&c.s);
		return 1;
	}
	if (proc_watch_children(&why) < 0) {
		warn("%s: the commands of a pgo-run killed with SIGKILL would go on running", why);
		free(why);
	}
	if (jobs_start(&why) < 0) {
		warn("%s: what a command leaves running would outlive it", why);
		free(why);
	}
	printf("[store] %s (configuration %s)\n", c.s.store.config, c.s.store.key);
	/* make would take a killed cycle's instrumented outputs for up to date */
	removed = tree_remove_instrumented(&c.s, NULL, 0);
	if (removed)
		steps_step("store", "removed the %zu output%s of the instrumented build that a pgo-run killed "
			    "before it could remove them left in the tree", removed, removed == 1 ? "" : "s");
	if (o->build && !o->clean)
		warn("no --clean command: the build must rebuild every object when the flags change");
	train_now = needs_training(&c.s, &ok);
	if (!ok || (train_now && !train(&c)) || proc_interrupted() || !plain_options(&c, train_now) ||
	    proc_interrupted())
		goto out;
	if (train_now) {
		if (!same_options(&c, &c.gen, "instrumented build", c.s.gen_dir) || !optimizes(&c.s, &c.gen) ||
		    !merge_commit(&c.s, c.profile, &c.meta))
			goto out;
		steps_step("merge", "profile installed: %s", c.profile);
		free(c.profile);
		c.profile = NULL;
	}
	status = optimized(&c);
	if (o->bench && !status && !proc_interrupted())
		status = bench_run(&c.s, &c.bench_plain, &c.bench_pgo);
out:
	if (proc_interrupted())
		status = 1;
	if (status)
		clean_up(&c);
	running_cycle = NULL;
	print_total(&c.s, status);
	switches_free(&c.plain);
	switches_free(&c.gen);
	compiles_free(&c.gen_outputs);
	store_meta_free(&c.meta);
	free(c.profile);
	bench_free(&c.bench_plain);
	bench_free(&c.bench_pgo);
	session_close(&c.s);
	sig = proc_interrupted();
	if (sig) {
		/* end as the signal would have ended us, for the shell that waits */
		fflush(stdout);
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return status;
}
