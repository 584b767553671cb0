#include "cycle.h"
#include "bench.h"
#include "build.h"
#include "files.h"
#include "merge.h"
#include "proc.h"
#include "report.h"
#include "train.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Whether the cycle trains: pgo-run build never does, and needs a profile
   in use (*ok false, with a message, without one); with --retrain-if-stale
   not while no source changed since that profile's training. */
static bool needs_training(const struct pgo_options *o, const char *profile, bool *ok)
{
	struct store_meta meta;
	char *why = NULL;
	bool have, train = true;
	size_t changed;

	*ok = true;
	if (!o->no_train && !o->retrain_if_stale)
		return true;
	have = store_meta_read(profile, &meta, &why) == 0;
	free(why);
	if (o->no_train) {
		train = false;
		if (!have) {
			error("%s: no profile to build with: run pgo-run WORKLOAD first", profile);
			*ok = false;
		} else if (report_stale_sources(&meta)) {
			warn("sources changed since training: expect coverage-mismatch warnings");
		}
	} else if (have) {
		changed = report_stale_sources(&meta);
		if (changed == 0) {
			report_step("profile", "fresh (trained %s ago, no source changed): not retraining",
				    report_age(time(NULL) - meta.trained));
			train = false;
		} else {
			report_step("profile", "%zu source%s changed since training: retraining", changed,
				    changed == 1 ? "" : "s");
		}
	}
	store_meta_free(&meta);
	return train;
}

/* The instrumented build, the training runs in a scratch folder and the
   merge of what they wrote into the profile in use. */
static bool train(struct session *s)
{
	char *raw = xasprintf("%s/raw.XXXXXX", s->store.config), *why;
	long started;
	bool ok;

	if (!mkdtemp(raw))
		fatal("%s: mkdtemp failed: %s", raw, strerror(errno));
	ok = build_run(s, BUILD_GENERATE, s->gen_dir, &started) && train_run(s, raw) &&
	     merge_install(s, raw, started);
	if (files_remove(raw, &why) < 0) {
		warn("%s", why);
		free(why);
	}
	free(raw);
	return ok;
}

static void print_total(const struct session *s, int status)
{
	double now = proc_now(), own = now - s->start - s->external;

	report_step("total", "%.1f s: builds, workloads and benchmark %.1f s, pgo-run itself %.2f s (%.1f%%)",
		    now - s->start, s->external, own, s->external > 0 ? 100 * own / s->external : 0);
	if (status)
		report_step("total", "failed; the profile in use is %s",
			    store_has_profile(&s->store) ? "the last good one" : "none");
}

int cycle_run(const struct pgo_options *o)
{
	struct session s;
	char *plain = NULL, *pgo = NULL, *profile;
	long started;
	int status = 1;
	bool train_now, ok;

	if (!train_check(o))
		return 1;
	if (!session_open(&s, o, true)) {
		session_close(&s);
		return 1;
	}
	profile = store_profile_path(&s.store);
	printf("[store] %s (configuration %s)\n", s.store.config, s.store.key);
	if (o->build && !o->clean)
		warn("no --clean command: the build must rebuild every object when the flags change");
	train_now = needs_training(o, profile, &ok);
	if (!ok)
		goto out;
	if (o->bench) {
		if (!build_run(&s, BUILD_PLAIN, s.use_dir, &started))
			goto out;
		plain = bench_keep_output(&s, "plain");
	}
	if (train_now && !train(&s))
		goto out;
	status = build_optimized(&s);
	if (o->bench && !status) {
		pgo = bench_keep_output(&s, "pgo");
		status = bench_run(&s, plain, pgo);
	}
out:
	print_total(&s, status);
	free(plain);
	free(pgo);
	free(profile);
	session_close(&s);
	return status;
}
