#include "linkcmd.h"
#include "util.h"

#include <stdbool.h>
#include <string.h>

/* Options of the compiler driver whose value may be the next word, which
   is then no operand. */
static const char *const separate_value[] = {
	"-o", "-x", "-MF", "-MT", "-MQ", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
	"-iprefix", "-iwithprefix", "-iwithprefixbefore", "-isysroot", "-imultilib", "-Xlinker",
	"-Xassembler", "-Xpreprocessor", "-L", "-l", "-I", "-D", "-U", "-u", "-T", "-z", "-e", "-B",
	"--param", "-aux-info", "-dumpbase", "-dumpbase-ext", "-dumpdir", "--sysroot", "-specs",
	"-wrapper", NULL,
};

/* Options that ask the driver something rather than build. */
static const char *const queries[] = {
	"--version", "--help", "-dumpversion", "-dumpfullversion", "-dumpmachine", "-dumpspecs", NULL,
};

/* Suffixes gcc compiles rather than hands to the linker. */
static const char *const source_suffixes[] = {
	".c", ".i", ".ii", ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", ".m", ".mi", ".mm",
	".M", ".mii", ".s", ".S", ".sx", ".f", ".for", ".ftn", ".F", ".FOR", ".fpp", ".FPP", ".FTN",
	".f90", ".f95", ".f03", ".f08", ".F90", ".F95", ".F03", ".F08", ".go", ".d", ".adb", ".ads",
	NULL,
};

static bool in_list(const char *word, const char *const *list)
{
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(word, list[i]))
			return true;
	return false;
}

static bool is_source(const char *operand)
{
	const char *dot = strrchr(operand, '.'), *slash = strrchr(operand, '/');

	if (!strcmp(operand, "-"))
		return true;
	return dot && (!slash || dot > slash) && in_list(dot, source_suffixes);
}

/* -Wl,... asking ld for a relocatable output (-r, --relocatable, -i). */
static bool relocatable_wl(const char *arg)
{
	const char *p = arg + 4;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if ((n == 2 && !strncmp(p, "-r", 2)) || (n == 2 && !strncmp(p, "-i", 2)) ||
		    (n == 12 && !strncmp(p, "--relocatable", 12)))
			return true;
		p = comma ? comma + 1 : NULL;
	}
	return false;
}

enum linkcmd_kind linkcmd_classify(char *const *argv)
{
	bool compile = false, stop = false, source = false, language = false, output = false;
	int i, inputs = 0;

	for (i = 1; argv[i]; i++) {
		const char *a = argv[i];

		if (a[0] == '@') {
			inputs++;
		} else if (a[0] != '-' || !strcmp(a, "-")) {
			if (language || is_source(a))
				source = true;
			else
				inputs++;
		} else if (!strcmp(a, "-c") || !strcmp(a, "-S")) {
			compile = true;
		} else if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM") || !strcmp(a, "-r") ||
			   !strcmp(a, "-###") || !strncmp(a, "-print-", 7) || in_list(a, queries) ||
			   (!strncmp(a, "-Wl,", 4) && relocatable_wl(a))) {
			stop = true;
		} else if (!strcmp(a, "-x")) {
			if (argv[i + 1])
				language = strcmp(argv[++i], "none") != 0;
		} else if (!strncmp(a, "-x", 2)) {
			language = strcmp(a + 2, "none") != 0;
		} else if (!strcmp(a, "-o")) {
			if (argv[i + 1]) {
				i++;
				output = strcmp(argv[i], "/dev/null") != 0;
			}
		} else if (!strncmp(a, "-o", 2)) {
			output = strcmp(a + 2, "/dev/null") != 0;
		} else if (in_list(a, separate_value) && argv[i + 1]) {
			i++;
		}
	}
	if (stop)
		return LINKCMD_OTHER;
	if (compile || source)
		return LINKCMD_COMPILE;
	return output && inputs > 0 ? LINKCMD_LINK : LINKCMD_OTHER;
}

/* The index of the word holding the output: that of "-o" (its value
   follows) or of "-oFILE"; -1 without one.  The last one counts, as for
   gcc. */
static int output_index(char *const *argv)
{
	int i, at = -1;

	for (i = 1; argv[i]; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (!argv[i + 1])
				break;
			at = i++;
		} else if (!strncmp(argv[i], "-o", 2)) {
			at = i;
		} else if (in_list(argv[i], separate_value) && argv[i + 1]) {
			i++;
		}
	}
	return at;
}

const char *linkcmd_output(char *const *argv)
{
	int at = output_index(argv);

	if (at < 0)
		return NULL;
	return !strcmp(argv[at], "-o") ? argv[at + 1] : argv[at] + 2;
}

int linkcmd_count(char *const *v)
{
	int n = 0;

	while (v && v[n])
		n++;
	return n;
}

char **linkcmd_rewrite(char *const *argv, const char *output, char *const *extra)
{
	int n = linkcmd_count(argv), k = linkcmd_count(extra), at = output ? output_index(argv) : -1, i;
	char **out = xcalloc(n + k + 1, sizeof(*out));

	for (i = 0; i < n; i++)
		out[i] = argv[i];
	if (at >= 0) {
		if (!strcmp(argv[at], "-o"))
			out[at + 1] = (char *)output;
		else
			out[at] = xasprintf("-o%s", output);
	}
	for (i = 0; i < k; i++)
		out[n + i] = extra[i];
	out[n + k] = NULL;
	return out;
}

char **linkcmd_operands(char *const *argv)
{
	int n = linkcmd_count(argv), i, k = 0;
	char **out = xcalloc(n + 1, sizeof(*out));

	for (i = 1; i < n; i++) {
		if (argv[i][0] == '-') {
			if (in_list(argv[i], separate_value) && i + 1 < n)
				i++;
			continue;
		}
		out[k++] = argv[i];
	}
	return out;
}
