#include "bench.h"
#include "files.h"
#include "proc.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), compare_doubles);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

char *bench_keep_output(const struct session *s, const char *which)
{
	const char *output = s->options->output, *base = strrchr(output, '/');
	char *dir = xasprintf("%s/bench/%s", s->store.config, which);
	char *from = output[0] == '/' ? xstrdup(output) : xasprintf("%s/%s", s->use_dir, output);
	char *to = xasprintf("%s/%s", dir, base ? base + 1 : output), *why;

	if (files_make_dir(dir, &why) < 0 || files_copy(from, to, &why) < 0)
		fatal("%s: cannot keep a copy for the benchmark: %s", from, why);
	if (chmod(to, 0755) < 0)
		fatal("%s: cannot keep a copy for the benchmark: %s: chmod failed: %s", from, to, strerror(errno));
	free(dir);
	free(from);
	return to;
}

int bench_run(struct session *s, const char *plain, const char *pgo)
{
	const char *command = s->options->bench, *bins[2] = { plain, pgo };
	int runs = s->options->runs, i, k, status = 0;
	double *tp = xcalloc(runs, sizeof(double)), *to = xcalloc(runs, sizeof(double));
	double *ratio = xcalloc(runs, sizeof(double));

	report_step("bench", "%s, %d runs of each build, alternating, after one warm-up run each", command, runs);
	for (i = -1; i < runs && !status; i++) {
		for (k = 0; k < 2 && !status; k++) {
			struct proc_env env[] = { { "PGO_BIN", bins[k] } };
			double seconds = 0;
			int run = proc_shell(command, NULL, env, 1, "/dev/null", &seconds);

			s->external += seconds;
			if (run != 0) {
				char *text = proc_describe(run);

				error("benchmark '%s' with PGO_BIN=%s failed: %s", command, bins[k], text);
				free(text);
				status = 1;
			} else if (i >= 0) {
				(k ? to : tp)[i] = seconds;
			}
		}
		if (i >= 0 && !status)
			ratio[i] = tp[i] / to[i];
	}
	if (!status)
		report_step("bench", "plain median %.3f s, PGO median %.3f s; speedup (median of the %d "
			    "pairwise ratios plain/PGO) %.3fx", median(tp, runs), median(to, runs), runs,
			    median(ratio, runs));
	free(tp);
	free(to);
	free(ratio);
	return status;
}
