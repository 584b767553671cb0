#include "linkcmd.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Options only the link stage reads, alone or glued to their value. */
static const char *const link_only[] = {
	"-shared", "-static", "-static-libgcc", "-static-libstdc++", "-rdynamic", "-no-pie", "-s",
	"-nostdlib", "-nostartfiles", "-nodefaultlibs", NULL,
};

/* Options only the link stage reads, whose value may be the next word. */
static const char *const link_only_value[] = { "-l", "-L", "-Xlinker", "-T", "-u", "-z", NULL };

/* How many words the option at argv[i] takes (1 or 2) when only the link
   stage reads it; 0 when the compile stage needs it too. */
static int link_only_words(char *const *argv, int i)
{
	const char *a = argv[i];
	int k;

	if (in_list(a, link_only) || !strncmp(a, "-Wl,", 4) || !strncmp(a, "-fuse-ld=", 9))
		return 1;
	if (!strcmp(a, "-undef")) /* the preprocessor's, not -u ndef */
		return 0;
	for (k = 0; link_only_value[k]; k++) {
		size_t n = strlen(link_only_value[k]);

		if (!strncmp(a, link_only_value[k], n))
			return a[n] || !argv[i + 1] ? 1 : 2;
	}
	return 0;
}

bool linkcmd_compiles_and_links(char *const *argv)
{
	int i, sources = 0, others = 0;

	if (linkcmd_classify(argv) != LINKCMD_COMPILE || !linkcmd_output(argv) ||
	    !strcmp(linkcmd_output(argv), "/dev/null"))
		return false;
	for (i = 1; argv[i]; i++) {
		const char *a = argv[i];

		if (a[0] == '@' || !strcmp(a, "-") || !strncmp(a, "-x", 2) || !strcmp(a, "-c") || !strcmp(a, "-S"))
			return false;
		if (a[0] != '-')
			is_source(a) ? sources++ : others++;
		else if (in_list(a, separate_value) && argv[i + 1])
			i++;
	}
	return sources > 0 && others > 0;
}

char **linkcmd_sources(char *const *argv)
{
	char **out = xcalloc(linkcmd_count(argv) + 1, sizeof(*out));
	int i, n = 0;

	for (i = 1; argv[i]; i++) {
		if (argv[i][0] != '-' && is_source(argv[i]))
			out[n++] = argv[i];
		else if (argv[i][0] == '-' && in_list(argv[i], separate_value) && argv[i + 1])
			i++;
	}
	return out;
}

char **linkcmd_compile_part(char *const *argv, int index, const char *object, char *const *extra)
{
	char **out = xcalloc(linkcmd_count(argv) + (extra ? linkcmd_count(extra) : 0) + 5, sizeof(*out));
	int i, n = 0, source = -1, skip;
	const char *chosen = NULL;

	out[n++] = argv[0];
	for (i = 1; argv[i]; i++) {
		const char *a = argv[i];

		if (a[0] != '-') {
			if (is_source(a) && ++source == index)
				chosen = a;
			continue;
		}
		if (!strcmp(a, "-o")) {
			i += argv[i + 1] != NULL;
			continue;
		}
		if (!strncmp(a, "-o", 2))
			continue;
		if ((skip = link_only_words(argv, i)) > 0) {
			i += skip - 1;
			continue;
		}
		out[n++] = (char *)a;
		if (in_list(a, separate_value) && argv[i + 1])
			out[n++] = argv[++i];
	}
	for (i = 0; extra && extra[i]; i++)
		out[n++] = extra[i];
	out[n++] = "-c";
	out[n++] = (char *)chosen;
	out[n++] = "-o";
	out[n++] = (char *)object;
	return out;
}

char **linkcmd_link_part(char *const *argv, char *const *objects)
{
	char **out = xcalloc(linkcmd_count(argv) + 1, sizeof(*out));
	int i, n = 0, source = 0;

	for (i = 0; argv[i]; i++) {
		if (i > 0 && argv[i][0] != '-' && is_source(argv[i])) {
			out[n++] = objects[source++];
			continue;
		}
		out[n++] = argv[i];
		if (i > 0 && argv[i][0] == '-' && in_list(argv[i], separate_value) && argv[i + 1])
			out[n++] = argv[++i];
	}
	return out;
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

bool linkcmd_read_response_file(const char *path, char ***out, int *count)
{
	FILE *f = fopen(path, "r");
	char **args = NULL;
	size_t n = 0, cap = 0, len = 0, bufcap = 0;
	char *buf = NULL;
	int c, quote = 0;
	bool in_word = false;

	if (!f)
		return false;
	/* An empty quoted argument ('') is copied from the buffer: never NULL. */
	grow_array(&buf, &bufcap, 1, 1);
	while ((c = getc(f)) != EOF) {
		if (!quote && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
			if (in_word) {
				*ARRAY_PUSH(args, n, cap) = xstrndup(buf, len);
				len = 0;
				in_word = false;
			}
			continue;
		}
		in_word = true;
		if (c == '\\') {
			c = getc(f);
			if (c == EOF)
				break;
		} else if (quote && c == quote) {
			quote = 0;
			continue;
		} else if (!quote && (c == '"' || c == '\'')) {
			quote = c;
			continue;
		}
		grow_array(&buf, &bufcap, len + 1, 1);
		buf[len++] = (char)c;
	}
	if (in_word)
		*ARRAY_PUSH(args, n, cap) = xstrndup(buf, len);
	free(buf);
	fclose(f);
	*out = args;
	*count = (int)n;
	return true;
}

/* Appends args to *list, as copies, each @FILE that can be read replaced
   by its arguments; false with *why set past 32 files deep. */
static bool expand(char *const *args, int count, char ***list, size_t *n, size_t *capacity, int depth, char **why)
{
	int i, k, inner_count;
	char **inner;
	bool ok = true;

	for (i = 0; i < count && ok; i++) {
		if (args[i][0] != '@' || !args[i][1] || !linkcmd_read_response_file(args[i] + 1, &inner, &inner_count)) {
			*ARRAY_PUSH(*list, *n, *capacity) = xstrdup(args[i]);
			continue;
		}
		if (depth >= 32) {
			*why = xasprintf("%s: response files nested too deeply: does one include itself?", args[i]);
			ok = false;
		} else {
			ok = expand(inner, inner_count, list, n, capacity, depth + 1, why);
		}
		for (k = 0; k < inner_count; k++)
			free(inner[k]);
		free(inner);
	}
	return ok;
}

char **linkcmd_expand(char *const *argv, char **why)
{
	char **list = NULL;
	size_t n = 0, capacity = 0;

	if (!expand(argv, linkcmd_count(argv), &list, &n, &capacity, 0, why)) {
		*ARRAY_PUSH(list, n, capacity) = NULL;
		linkcmd_free(list);
		return NULL;
	}
	*ARRAY_PUSH(list, n, capacity) = NULL;
	return list;
}

void linkcmd_free(char **v)
{
	int i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char **linkcmd_operands(char *const *argv, char **why)
{
	char **words = linkcmd_expand(argv, why), **out;
	int n, i, k = 0;

	if (!words)
		return NULL;
	n = linkcmd_count(words);
	out = xcalloc(n + 1, sizeof(*out));
	for (i = 1; i < n; i++) {
		if (words[i][0] == '-') {
			if (in_list(words[i], separate_value) && i + 1 < n)
				i++;
			continue;
		}
		out[k++] = xstrdup(words[i]);
	}
	linkcmd_free(words);
	return out;
}
