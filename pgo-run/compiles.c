#include "compiles.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Options of the gcc driver whose value is the next argument. */
static const char *const separate_value[] = {
	"-o", "-x", "-I", "-D", "-U", "-L", "-l", "-T", "-u", "-z", "-e", "-A", "-MF", "-MT", "-MQ",
	"-include", "-imacros", "-imultilib", "-iprefix", "-iquote", "-isysroot", "-isystem",
	"-idirafter", "-iwithprefix", "-iwithprefixbefore", "-aux-info", "-dumpbase", "-dumpbase-ext",
	"-dumpdir", "-Xlinker", "-Xassembler", "-Xpreprocessor", "--param", "-wrapper", NULL,
};

static bool takes_value(const char *arg)
{
	size_t i;

	for (i = 0; separate_value[i]; i++)
		if (!strcmp(arg, separate_value[i]))
			return true;
	return false;
}

static const char *suffix_of(const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name, *dot = strrchr(base, '.');

	return dot && dot != base ? dot : NULL;
}

/* True when the input file name is a source gcc compiles (rather than an
   object, archive or library it hands to the linker). */
static bool is_source(const char *name, bool language_given)
{
	static const char *const sources[] = {
		".c", ".i", ".cc", ".cp", ".cxx", ".cpp", ".CPP", ".c++", ".C", ".ii", ".m", ".mi", ".mm",
		".M", ".mii", ".s", ".S", ".sx", ".f", ".for", ".f90", ".F", ".F90", ".d", NULL,
	};
	const char *suffix = suffix_of(name);
	size_t i;

	if (language_given || !strcmp(name, "-"))
		return true;
	for (i = 0; suffix && sources[i]; i++)
		if (!strcmp(suffix, sources[i]))
			return true;
	return false;
}

/* What one command's arguments say. */
struct command_line {
	const char *output;  /* -o, or NULL */
	bool compile, other; /* -c; -E, -S or -M (nothing to check) */
	const char **sources, **archives;
	size_t nsources, narchives, ninputs;
};

static void parse_command(char **argv, size_t argc, struct command_line *cl)
{
	size_t i, cap_s = 0, cap_a = 0;
	bool language = false;

	memset(cl, 0, sizeof(*cl));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-c")) {
			cl->compile = true;
		} else if (!strcmp(a, "-E") || !strcmp(a, "-S") || !strcmp(a, "-M") || !strcmp(a, "-MM")) {
			cl->other = true;
		} else if (!strncmp(a, "-o", 2)) {
			cl->output = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
		} else if (!strcmp(a, "-x")) {
			language = i + 1 < argc && strcmp(argv[i + 1], "none") != 0;
			i++;
		} else if (a[0] == '-' && a[1]) {
			if (takes_value(a))
				i++;
		} else {
			cl->ninputs++;
			if (is_source(a, language))
				*ARRAY_PUSH(cl->sources, cl->nsources, cap_s) = a;
			else if (suffix_of(a) && !strcmp(suffix_of(a), ".a"))
				*ARRAY_PUSH(cl->archives, cl->narchives, cap_a) = a;
		}
	}
}

/* The object a compile without -o writes for source: its base name with
   the suffix replaced by .o, in the command's folder; a new string. */
static char *default_object(const char *source)
{
	const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
	const char *suffix = suffix_of(base);
	size_t n = suffix ? (size_t)(suffix - base) : strlen(base);

	return xasprintf("%.*s.o", (int)n, base);
}

/* Adds an output (a later write of the same file replaces the earlier). */
static void add_output(struct compiles *c, size_t *cap, const char *dir, const char *name,
		       enum output_kind kind)
{
	char *path = name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", dir, name);
	size_t i;

	for (i = 0; i < c->count; i++) {
		if (!strcmp(c->outputs[i].path, path)) {
			free(path);
			c->outputs[i].kind = kind;
			return;
		}
	}
	*ARRAY_PUSH(c->outputs, c->count, *cap) = (struct compile_output){
		.path = path, .dir = xstrdup(dir), .name = xstrdup(name), .kind = kind,
	};
}

/* Adds the sources a command compiled (run in dir) to c's list. */
static void add_sources(struct compiles *c, const char *dir, const struct command_line *cl)
{
	size_t i, k;

	for (i = 0; i < cl->nsources; i++) {
		char *path = cl->sources[i][0] == '/' ? xstrdup(cl->sources[i])
						       : xasprintf("%s/%s", dir, cl->sources[i]);
		char *real = realpath(path, NULL);

		if (real) {
			free(path);
			path = real;
		}
		for (k = 0; k < c->nsources && strcmp(c->sources[k], path) != 0; k++)
			;
		if (k < c->nsources || !strcmp(cl->sources[i], "-")) {
			free(path);
			continue;
		}
		c->sources = xrealloc(c->sources, (c->nsources + 1) * sizeof(*c->sources));
		c->sources[c->nsources++] = path;
	}
}

/* Adds what one command (argv[0] the compiler, run in dir) wrote. */
static void add_command(struct compiles *c, size_t *cap, const char *dir, char **argv, size_t argc,
			long since)
{
	struct command_line cl;
	size_t i;

	parse_command(argv, argc, &cl);
	/* gcc --version, -print-*, -dumpmachine: no input, no output */
	if (cl.other || (cl.compile ? cl.nsources == 0 : cl.ninputs == 0)) {
		free(cl.sources);
		free(cl.archives);
		return;
	}
	add_sources(c, dir, &cl);
	if (cl.compile) {
		if (cl.output && cl.nsources == 1) {
			add_output(c, cap, dir, cl.output, OUTPUT_OBJECT);
		} else if (!cl.output) {
			for (i = 0; i < cl.nsources; i++) {
				char *object = default_object(cl.sources[i]);

				add_output(c, cap, dir, object, OUTPUT_OBJECT);
				free(object);
			}
		}
	} else {
		for (i = 0; i < cl.narchives; i++) {
			char *path = cl.archives[i][0] == '/' ? xstrdup(cl.archives[i])
							       : xasprintf("%s/%s", dir, cl.archives[i]);
			struct stat st;

			if (stat(path, &st) == 0 && st.st_mtime >= since)
				add_output(c, cap, dir, cl.archives[i], OUTPUT_ARCHIVE);
			free(path);
		}
		add_output(c, cap, dir, cl.output ? cl.output : "a.out", OUTPUT_LINKED);
	}
	free(cl.sources);
	free(cl.archives);
}

/* Reads the whole file at path into a new NUL-terminated buffer; *size
   gets its length.  NULL with errno set when it cannot. */
static char *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	size_t cap = 0, n;

	*size = 0;
	if (!f)
		return NULL;
	do {
		grow_array(&data, &cap, *size + 65536, 1);
		n = fread(data + *size, 1, cap - *size - 1, f);
		*size += n;
	} while (n > 0);
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		free(data);
		errno = e;
		return NULL;
	}
	fclose(f);
	data[*size] = '\0';
	return data;
}

int compiles_read(const char *path, long since, struct compiles *c, char **why)
{
	size_t size, at = 0, cap = 0;
	char *data;

	memset(c, 0, sizeof(*c));
	data = read_all(path, &size);
	if (!data) {
		if (errno == ENOENT)
			return 0;
		*why = xasprintf("%s: read failed: %s", path, strerror(errno));
		return -1;
	}
	while (at < size) {
		char *end, **argv = NULL, *p, *dir;
		unsigned long long length = strtoull(data + at, &end, 10);
		size_t argc = 0, cap_argv = 0;

		if (end == data + at || *end != '\n' || length > size - (end + 1 - data) || length == 0 ||
		    data[end + 1 - data + length - 1] != '\0') {
			*why = xasprintf("%s: not a log of pgo-cc: bad record at byte %zu", path, at);
			free(data);
			return -1;
		}
		dir = end + 1;
		for (p = dir + strlen(dir) + 1; p < end + 1 + length; p += strlen(p) + 1)
			*ARRAY_PUSH(argv, argc, cap_argv) = p;
		if (argc > 0)
			add_command(c, &cap, dir, argv, argc, since);
		c->commands++;
		free(argv);
		at = end + 1 - data + length;
	}
	free(data);
	return 0;
}

void compiles_free(struct compiles *c)
{
	size_t i;

	for (i = 0; i < c->count; i++) {
		free(c->outputs[i].path);
		free(c->outputs[i].dir);
		free(c->outputs[i].name);
	}
	free(c->outputs);
	for (i = 0; i < c->nsources; i++)
		free(c->sources[i]);
	free(c->sources);
	memset(c, 0, sizeof(*c));
}

/* The object's name as the command gave it, without its suffix: gcc's
   base for the notes and profile file names; a new string. */
static char *auxiliary_name(const struct compile_output *o)
{
	const char *suffix = suffix_of(o->name);

	return suffix ? xstrndup(o->name, suffix - o->name) : xstrdup(o->name);
}

char *compiles_notes_path(const struct compile_output *o)
{
	char *aux = auxiliary_name(o), *path;

	path = aux[0] == '/' ? xasprintf("%s.gcno", aux) : xasprintf("%s/%s.gcno", o->dir, aux);
	free(aux);
	return path;
}

/* gcc's mangling of a relative path: '/' becomes '#', a ".." component
   becomes '^'. */
static char *mangle(const char *path)
{
	char *out = xmalloc(strlen(path) + 1), *q = out;
	const char *p = path;

	for (;;) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.')
			*q++ = '^';
		else
			q = (char *)memcpy(q, p, n) + n;
		if (!end)
			break;
		*q++ = '#';
		p = end + 1;
	}
	*q = '\0';
	return out;
}

char *compiles_profile_name(const struct compile_output *o, const char *prefix)
{
	char *aux = auxiliary_name(o), *full, *name;
	const char *rest;
	size_t n = strlen(prefix);

	/* an absolute name is used as it is, below the profile folder */
	if (aux[0] == '/') {
		name = xstrdup(aux + 1);
		free(aux);
		return name;
	}
	full = xasprintf("%s/%s", o->dir, aux);
	rest = full;
	if (!strncmp(full, prefix, n) && (full[n] == '/' || full[n] == '\0')) {
		rest = full + n;
		while (*rest == '/')
			rest++;
	}
	name = mangle(rest);
	free(full);
	free(aux);
	return name;
}

char *compiles_notes_of_profile(const char *rel, const char *prefix)
{
	const char *suffix = suffix_of(rel);
	char *base = suffix ? xstrndup(rel, suffix - rel) : xstrdup(rel), *path, *p, *q;

	/* a name with '/' is an absolute one (see compiles_profile_name) */
	if (strchr(base, '/')) {
		path = xasprintf("/%s.gcno", base);
		free(base);
		return path;
	}
	path = xmalloc(strlen(prefix) + 2 * strlen(base) + 8);
	q = path;
	if (base[0] != '#')
		q += sprintf(q, "%s/", prefix);
	for (p = base; *p; p++) {
		if (*p == '#')
			*q++ = '/';
		else if (*p == '^')
			q += sprintf(q, "..");
		else
			*q++ = *p;
	}
	strcpy(q, ".gcno");
	free(base);
	return path;
}

/* The length of the first component of p (after its leading '/'s) and,
   in *start, where it begins. */
static size_t component(const char *p, const char **start)
{
	while (*p == '/')
		p++;
	*start = p;
	return strcspn(p, "/");
}

char *compiles_relative(const char *path, const char *base)
{
	const char *p = path, *b = base, *pc, *bc;
	size_t pn, bn, up = 0;
	char *out, *q;

	/* skip the components the two share */
	for (;;) {
		pn = component(p, &pc);
		bn = component(b, &bc);
		if (!pn || pn != bn || strncmp(pc, bc, pn) != 0)
			break;
		p = pc + pn;
		b = bc + bn;
	}
	for (; bn; bn = component(b, &bc)) {
		up++;
		b = bc + bn;
	}
	out = q = xmalloc(3 * up + strlen(pc) + 2);
	for (; up; up--)
		q += sprintf(q, "..%s", up > 1 || *pc ? "/" : "");
	strcpy(q, pc);
	if (!*out)
		strcpy(out, ".");
	return out;
}
