/* inputs: GNU ld's command line and implicit linker scripts, turned into a
   tree of inputs; library search; opening and classifying files. */
#include "linkmodel.h"
#include "linkcmd.h"
#include "linker.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ld options that take their value as the next argument when it is not
   attached; those not handled below are accepted without a word unless
   they are among the unmodelled ones. */
static const char *const options_with_argument[] = {
	"o", "output", "m", "T", "script", "Map", "soname", "h", "rpath", "rpath-link",
	"dynamic-linker", "I", "plugin", "plugin-opt", "z", "y", "trace-symbol", "a", "A",
	"architecture", "b", "format", "c", "mri-script", "F", "filter", "f", "auxiliary",
	"G", "gpsize", "R", "just-symbols", "Y", "O", "version-script", "dynamic-list",
	"section-start", "Ttext", "Tdata", "Tbss", "Ttext-segment", "Trodata-segment",
	"Tldata-segment", "defsym", "exclude-libs", "wrap", "retain-symbols-file", "P",
	"depaudit", "audit", "dependency-file", "oformat", "image-base", "assert", "fini",
	"init", "require-defined", "L", "l", "u", "e", "entry", "undefined", "library",
	"library-path", "dT", "default-script", NULL,
};

/* ld options without a value; listed so that a single-dash long option
   such as -export-dynamic is not read as -e xport-dynamic. */
static const char *const known_flags[] = {
	"static", "shared", "Bstatic", "Bdynamic", "Bshareable", "Bsymbolic", "Bsymbolic-functions",
	"Bno-symbolic", "Bgroup", "dn", "dy", "non_shared", "call_shared", "pie", "no-pie", "pic-executable",
	"export-dynamic", "no-export-dynamic", "eh-frame-hdr", "no-eh-frame-hdr", "as-needed",
	"no-as-needed", "whole-archive", "no-whole-archive", "push-state", "pop-state", "start-group",
	"end-group", "gc-sections", "no-gc-sections", "print-gc-sections", "no-print-gc-sections",
	"relax", "no-relax", "verbose", "version", "no-undefined", "allow-shlib-undefined",
	"no-allow-shlib-undefined", "allow-multiple-definition", "emit-relocs", "strip-all",
	"strip-debug", "discard-all", "discard-locals", "enable-new-dtags", "disable-new-dtags",
	"fatal-warnings", "no-fatal-warnings", "noinhibit-exec", "nostdlib", "trace", "cref",
	"error-unresolved-symbols", "warn-unresolved-symbols", "warn-common", "warn-once",
	"demangle", "no-demangle", "copy-dt-needed-entries", "no-copy-dt-needed-entries",
	"add-needed", "no-add-needed", "dynamic-list-data", "relocatable", "omagic", "nmagic",
	"no-omagic", "print-map", "stats", "no-keep-memory", "reduce-memory-overheads",
	"warn-textrel", "no-warn-mismatch", "no-warn-search-mismatch", "export-dynamic",
	"ld-generated-unwind-info", "no-ld-generated-unwind-info", "gdb-index", "no-gdb-index",
	"print-memory-usage", "check-sections", "no-check-sections", "accept-unknown-input-arch",
	"no-accept-unknown-input-arch", "print-output-format", "default-symver", "default-imported-symver",
	"no-define-common", "sort-common", "traditional-format", "undefined-version",
	"no-undefined-version", "warn-constructors", "warn-multiple-gp", "warn-section-align",
	"no-warnings", "qmagic", "Qy", "error-handling-script", "no-print-map-discarded",
	"print-map-discarded", "enable-non-contiguous-regions", "relro", "no-relro",
	"build-id", "package-metadata", "hash-style", "compress-debug-sections", "sort-section",
	"unresolved-symbols", "sysroot", "plugin-opt", "threads", "no-threads", "icf", "target-help",
	"help", "export-dynamic-symbol", "export-dynamic-symbol-list", "dynamic-list-cpp-typeinfo",
	"dynamic-list-cpp-new", "exclude-modules-for-implib", "orphan-handling", "error-execstack",
	"no-error-execstack", "warn-execstack", "no-warn-execstack", "warn-rwx-segments",
	"no-warn-rwx-segments", "section-ordering-file", "print-sysroot", "force-group-allocation",
	"s", "S", "x", "X", "t", "v", "V", "M", "n", "N", "E", "q", "g", "d", "dc", "dp", "EB", "EL",
	"r", "i", "Ur", "start-lib", "end-lib", NULL,
};

/* Known ld options that change which inputs the link takes or how their
   symbols resolve in ways deporder does not model (a relocatable link, a
   sysroot, libraries found through DT_NEEDED, another input format):
   skipped with a warning, as unknown options are.  Every other known
   option only shapes the output (its name, format, layout, dynamic
   section, what ld prints) and is accepted without a word: the compiler
   driver adds ten of those to every link. */
static const char *const unmodelled_options[] = {
	"r", "relocatable", "i", "Ur", "b", "format", "nostdlib", "sysroot", "Y", "copy-dt-needed-entries",
	"add-needed", "c", "mri-script", "dT", "default-script", "start-lib", "end-lib",
	"allow-multiple-definition", NULL,
};

static bool is_known_flag(const char *name)
{
	const char *const *o;

	for (o = known_flags; *o; o++)
		if (strcmp(*o, name) == 0)
			return true;
	return false;
}

static bool takes_argument(const char *name)
{
	const char *const *o;

	for (o = options_with_argument; *o; o++)
		if (strcmp(*o, name) == 0)
			return true;
	return false;
}

static bool is_unmodelled(const char *name, const char *value)
{
	const char *const *o;

	if (!strcmp(name, "z"))
		return value && !strcmp(value, "muldefs");
	for (o = unmodelled_options; *o; o++)
		if (strcmp(*o, name) == 0)
			return true;
	return false;
}

bool inputs_known_option(const char *arg)
{
	const char *name = arg + 1 + (arg[1] == '-');
	const char *eq = strchr(name, '=');
	char *n = eq ? xstrndup(name, eq - name) : xstrdup(name);
	bool known = takes_argument(n) || is_known_flag(n) || !strcmp(n, "(") || !strcmp(n, ")");

	free(n);
	return known;
}

static struct input *input_new(enum input_kind kind, const char *path)
{
	struct input *in = xcalloc(1, sizeof(*in));

	in->kind = kind;
	in->path = path ? xstrdup(path) : NULL;
	return in;
}

static void input_add_child(struct input *group, struct input *child)
{
	*ARRAY_PUSH(group->children, group->child_count, group->child_capacity) = child;
}

struct parse_state {
	bool search_static, whole_archive, as_needed;
};

bool inputs_quiet;
const char *inputs_linker;

static struct strmap warned_options;

/* An option deporder does not model, or does not know, once per option.
   value: the option's separate or attached value, for -z, whose keywords
   are options of their own (-z muldefs). */
static void warn_skipped(const char *arg, const char *value)
{
	const char *eq = strchr(arg, '=');
	char *name = value && (!strcmp(arg, "-z") || !strncmp(arg, "-z", 2)) ? xasprintf("-z %s", value)
		   : eq ? xstrndup(arg, eq - arg) : xstrdup(arg);
	void **slot = strmap_slot(&warned_options, name);

	if (*slot) {
		free(name);
		return;
	}
	*slot = name;
	if (!inputs_quiet)
		warn("ignoring ld option '%s': deporder does not model it; the closure may differ from ld's", name);
}

static void add_string(char ***list, size_t *count, size_t *capacity, const char *s)
{
	*ARRAY_PUSH(*list, *count, *capacity) = xstrdup(s);
}

/* Where the command-line walk stands: the group inputs go to, the
   position-dependent flags and the --push-state stack. */
struct parse_context {
	struct link_options *options;
	struct input *groups[2];
	int depth;
	struct parse_state state, stack[64];
	int stack_depth;
	int response_depth;         /* @FILE inside @FILE */
};

/* One ld option split into its name (without dashes) and value. */
struct ld_option {
	const char *arg;            /* as given */
	const char *name;
	const char *value;          /* attached, after '=', or the next argument; NULL */
	char *owned_name;
};

/* Splits argv[*i], an option, into name and value, taking the next
   argument as the value where ld would; EXIT_USAGE when it is missing. */
static int split_option(char **argv, int argc, int *i, struct ld_option *o)
{
	const char *arg = argv[*i], *eq;

	memset(o, 0, sizeof(*o));
	o->arg = arg;
	/* ld accepts every long option with one dash or two. */
	o->name = arg + 1 + (arg[1] == '-');
	eq = strchr(o->name, '=');
	if (eq) {
		o->owned_name = xstrndup(o->name, eq - o->name);
		o->value = eq + 1;
		o->name = o->owned_name;
	}
	/* ld reads single-dash long options first (getopt_long_only); what
	   is no long option is a letter with its value attached: -lfoo. */
	if (!o->value && arg[1] != '-' && arg[2] != '\0' && !takes_argument(o->name) && !is_known_flag(o->name) &&
	    strchr("lLueyYzoOmTRhIaAbcfFGP", arg[1])) {
		o->owned_name = xstrndup(arg + 1, 1);
		o->name = o->owned_name;
		o->value = arg + 2;
	}
	if (!o->value && takes_argument(o->name)) {
		if (*i + 1 >= argc) {
			error("option '%s' needs an argument", arg);
			return EXIT_USAGE;
		}
		o->value = argv[++*i];
	}
	return 0;
}

static bool named(const struct ld_option *o, const char *a, const char *b)
{
	return !strcmp(o->name, a) || (b && !strcmp(o->name, b));
}

/* An input file, or -l NAME, at the current position of the command line. */
static void add_input(struct parse_context *c, const char *path, const char *library)
{
	struct input *in = input_new(INPUT_FILE, path);

	if (library)
		in->library = xstrdup(library);
	in->search_static = c->state.search_static;
	in->whole_archive = c->state.whole_archive;
	in->as_needed = c->state.as_needed;
	input_add_child(c->groups[c->depth], in);
}

/* --start-group / --end-group; EXIT_USAGE when they do not pair. */
static int group_option(struct parse_context *c, const char *arg, bool start)
{
	if (start) {
		struct input *in;

		if (c->depth >= 1) {
			error("may not nest groups ('%s' inside a group)", arg);
			return EXIT_USAGE;
		}
		in = input_new(INPUT_GROUP, NULL);
		input_add_child(c->groups[c->depth], in);
		c->groups[++c->depth] = in;
		return 0;
	}
	if (c->depth == 0) {
		error("group ended before it began ('%s')", arg);
		return EXIT_USAGE;
	}
	c->depth--;
	return 0;
}

/* The position-dependent flags: true if o was one of them. */
static bool state_option(struct parse_context *c, const struct ld_option *o)
{
	struct parse_state *s = &c->state;

	if (named(o, "Bstatic", "static") || named(o, "dn", "non_shared"))
		s->search_static = true;
	else if (named(o, "Bdynamic", "dy") || named(o, "call_shared", NULL))
		s->search_static = false;
	else if (named(o, "whole-archive", NULL))
		s->whole_archive = true;
	else if (named(o, "no-whole-archive", NULL))
		s->whole_archive = false;
	else if (named(o, "as-needed", NULL))
		s->as_needed = true;
	else if (named(o, "no-as-needed", NULL))
		s->as_needed = false;
	else
		return false;
	return true;
}

/* Applies one ld option to the link; EXIT_USAGE on a misuse ld refuses. */
static int apply_option(struct parse_context *c, const struct ld_option *o)
{
	struct link_options *opt = c->options;
	const char *value = o->value;

	if (state_option(c, o))
		return 0;
	if (named(o, "l", "library")) {
		add_input(c, NULL, value);
	} else if (named(o, "L", "library-path")) {
		add_string(&opt->lib_dirs, &opt->lib_dir_count, &opt->lib_dir_capacity, value);
	} else if (named(o, "u", "undefined") || named(o, "require-defined", NULL)) {
		add_string(&opt->undefined, &opt->undefined_count, &opt->undefined_capacity, value);
	} else if (named(o, "o", "output")) {
		free(opt->output);
		opt->output = xstrdup(value);
	} else if (named(o, "e", "entry")) {
		free(opt->entry);
		opt->entry = xstrdup(value);
	} else if (named(o, "shared", "Bshareable")) {
		opt->shared = true;
	} else if (named(o, "push-state", NULL)) {
		if (c->stack_depth >= 64) {
			error("too many nested --push-state");
			return EXIT_USAGE;
		}
		c->stack[c->stack_depth++] = c->state;
	} else if (named(o, "pop-state", NULL)) {
		if (c->stack_depth == 0) {
			error("--pop-state without --push-state");
			return EXIT_USAGE;
		}
		c->state = c->stack[--c->stack_depth];
	} else if (named(o, "no-undefined", NULL) || (named(o, "z", NULL) && !strcmp(value, "defs"))) {
		opt->report_undefined_in_shared = true;
	} else if (named(o, "unresolved-symbols", NULL) && value && !strcmp(value, "ignore-all")) {
		opt->ignore_undefined = true;
	} else if (named(o, "wrap", "defsym") || named(o, "T", "script") || named(o, "just-symbols", "R")) {
		bool separate = value && !strchr(o->arg, '=') && o->arg[2] == '\0';

		warn("ignoring ld option '%s%s%s': deporder does not model it; the closure may differ from ld's",
		     o->arg, separate ? " " : "", separate ? value : "");
	} else if (is_unmodelled(o->name, value) || (!takes_argument(o->name) && !is_known_flag(o->name))) {
		warn_skipped(o->arg, value);
	}
	return 0;
}

static int parse_args(struct parse_context *c, char **argv, int argc);

/* @FILE: its arguments in its place; false if it cannot be read (then
   the argument is a file name, as ld takes it). */
static bool response_file(struct parse_context *c, const char *path, int *rc)
{
	char **args;
	int count, k;

	if (!linkcmd_read_response_file(path, &args, &count))
		return false;
	if (c->response_depth >= 32) {
		error("@%s: response files nested too deeply: does one include itself?", path);
		*rc = EXIT_INPUT;
	} else {
		c->response_depth++;
		*rc = parse_args(c, args, count);
		c->response_depth--;
	}
	for (k = 0; k < count; k++)
		free(args[k]);
	free(args);
	return true;
}

static int parse_args(struct parse_context *c, char **argv, int argc)
{
	int i, rc;

	for (i = 0; i < argc; i++) {
		const char *arg = argv[i];
		struct ld_option o;

		if (arg[0] == '@' && arg[1] && response_file(c, arg + 1, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		if (arg[0] != '-' || arg[1] == '\0') {
			add_input(c, arg, NULL);
			continue;
		}
		if (!strcmp(arg, "(") || !strcmp(arg, "-(") || !strcmp(arg, "--start-group") || !strcmp(arg, "-)") ||
		    !strcmp(arg, "--end-group")) {
			if ((rc = group_option(c, arg, arg[1] == '(' || arg[2] == 's')))
				return rc;
			continue;
		}
		rc = split_option(argv, argc, &i, &o);
		if (!rc)
			rc = apply_option(c, &o);
		free(o.owned_name);
		if (rc)
			return rc;
	}
	return 0;
}

/* The link's own arguments, for the options that choose the linker's
   default script (-m, -z, -pie, -shared...): its search path and the
   symbols it defines are those of the script this link would get. */
static char **link_argv;

struct link_options *inputs_parse(char **argv, int argc)
{
	struct link_options *opt = xcalloc(1, sizeof(*opt));
	struct parse_context c = { .options = opt };

	free(link_argv);
	link_argv = xcalloc(argc + 1, sizeof(*link_argv));
	memcpy(link_argv, argv, argc * sizeof(*argv));
	opt->root = input_new(INPUT_GROUP, NULL);
	c.groups[0] = opt->root;
	if (parse_args(&c, argv, argc))
		goto fail;
	if (c.depth != 0) {
		error("--start-group without --end-group");
		goto fail;
	}
	return opt;
fail:
	inputs_free(opt);
	return NULL;
}

static void unit_free(struct unit *u)
{
	elfobj_close(&u->elf);
	if (u->map)
		munmap(u->map, u->map_size);
	free(u->section_discarded);
	free(u->section_kept);
	free(u->name);
	free(u);
}

static void input_free(struct input *in)
{
	size_t i;

	for (i = 0; i < in->child_count; i++)
		input_free(in->children[i]);
	free(in->children);
	if (in->unit)
		unit_free(in->unit);
	for (i = 0; in->members && i < in->archive->member_count; i++)
		if (in->members[i])
			unit_free(in->members[i]);
	free(in->members);
	archive_free(in->archive);
	if (in->map)
		munmap(in->map, in->map_size);
	free(in->path);
	free(in->library);
	free(in);
}

void inputs_free(struct link_options *opt)
{
	size_t i;

	if (!opt)
		return;
	input_free(opt->root);
	for (i = 0; i < opt->undefined_count; i++)
		free(opt->undefined[i]);
	free(opt->undefined);
	for (i = 0; i < opt->lib_dir_count; i++)
		free(opt->lib_dirs[i]);
	free(opt->lib_dirs);
	free(opt->entry);
	free(opt->output);
	free(opt);
}

/* The linker that gcc would run ($LD, or ld), asked once; NULL, after one
   warning, when it cannot be asked. */
static const struct linker *default_linker(void)
{
	static const struct linker *linker;
	static bool asked;
	const char *ld = inputs_linker ? inputs_linker : getenv("LD");
	char *why;

	if (asked)
		return linker;
	asked = true;
	linker = linker_get(ld && *ld ? ld : "ld", link_argv, &why);
	if (!linker) {
		warn("%s: libraries are searched in -L folders only, and only the symbols ld always creates count "
		     "as linker-defined", why);
		free(why);
	}
	return linker;
}

bool inputs_linker_defines(const char *name)
{
	return linker_defines(default_linker(), name);
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *search_dirs(char **dirs, size_t count, const char *name, bool search_static)
{
	size_t i;

	for (i = 0; i < count; i++) {
		char *path;

		if (name[0] == ':') {
			path = xasprintf("%s/%s", dirs[i], name + 1);
			if (is_file(path))
				return path;
			free(path);
			continue;
		}
		if (!search_static) {
			path = xasprintf("%s/lib%s.so", dirs[i], name);
			if (is_file(path))
				return path;
			free(path);
		}
		path = xasprintf("%s/lib%s.a", dirs[i], name);
		if (is_file(path))
			return path;
		free(path);
	}
	return NULL;
}

static char *find_library(struct link_options *opt, const char *name, bool search_static)
{
	char *path = search_dirs(opt->lib_dirs, opt->lib_dir_count, name, search_static);
	const struct linker *linker;

	if (path)
		return path;
	linker = default_linker();
	return linker ? search_dirs(linker->search_dirs, linker->search_dir_count, name, search_static) : NULL;
}

/* Implicit linker scripts: INPUT(), GROUP(), AS_NEEDED(), SEARCH_DIR(),
   OUTPUT_FORMAT() and friends.  Only the commands that name inputs matter. */
struct script_reader {
	const char *p, *end;
	char token[4096];
};

/* Next token: a word, or one of ( ) , ; returns false at the end. */
static bool script_token(struct script_reader *r)
{
	size_t n = 0;

	for (;;) {
		while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
			r->p++;
		if (r->end - r->p >= 2 && r->p[0] == '/' && r->p[1] == '*') {
			const char *close = NULL, *q;

			for (q = r->p + 2; q + 1 < r->end; q++)
				if (q[0] == '*' && q[1] == '/') {
					close = q;
					break;
				}
			r->p = close ? close + 2 : r->end;
			continue;
		}
		break;
	}
	if (r->p >= r->end)
		return false;
	if (*r->p == '(' || *r->p == ')' || *r->p == ',' || *r->p == '{' || *r->p == '}' || *r->p == ';') {
		r->token[0] = *r->p++;
		r->token[1] = '\0';
		return true;
	}
	if (*r->p == '"') {
		r->p++;
		while (r->p < r->end && *r->p != '"' && n + 1 < sizeof(r->token))
			r->token[n++] = *r->p++;
		if (r->p < r->end)
			r->p++;
	} else {
		while (r->p < r->end && !strchr(" \t\r\n(),{};", *r->p) && n + 1 < sizeof(r->token))
			r->token[n++] = *r->p++;
	}
	r->token[n] = '\0';
	return true;
}

static bool script_file_list(struct script_reader *r, struct link_options *opt, struct input *parent,
			     const struct input *script, bool as_needed, int depth, char **why)
{
	if (depth > 16) {
		*why = xstrdup("linker script: AS_NEEDED nested too deeply");
		return false;
	}
	if (!script_token(r) || strcmp(r->token, "(") != 0) {
		*why = xstrdup("linker script: expected '('");
		return false;
	}
	while (script_token(r)) {
		struct input *in;

		if (strcmp(r->token, ")") == 0)
			return true;
		if (strcmp(r->token, ",") == 0)
			continue;
		if (strcmp(r->token, "AS_NEEDED") == 0) {
			if (!script_file_list(r, opt, parent, script, true, depth + 1, why))
				return false;
			continue;
		}
		in = input_new(INPUT_FILE, NULL);
		in->whole_archive = script->whole_archive;
		in->as_needed = as_needed;
		in->search_static = script->search_static;
		if (strncmp(r->token, "-l", 2) == 0)
			in->library = xstrdup(r->token + 2);
		else
			in->path = xstrdup(r->token);
		input_add_child(parent, in);
	}
	*why = xstrdup("linker script: missing ')'");
	return false;
}

/* Parses a script into in->children; returns false if the text is no script. */
static bool script_parse(struct input *in, struct link_options *opt, char **why)
{
	struct script_reader r;
	bool any = false;

	r.p = in->map;
	r.end = r.p + in->map_size;
	if (memchr(in->map, '\0', in->map_size)) {
		*why = xstrdup("file format not recognized: neither ELF, an archive nor a linker script");
		return false;
	}
	while (script_token(&r)) {
		if (strcmp(r.token, "INPUT") == 0 || strcmp(r.token, "GROUP") == 0) {
			struct input *target = in;

			if (r.token[0] == 'G') {
				target = input_new(INPUT_GROUP, NULL);
				input_add_child(in, target);
			}
			if (!script_file_list(&r, opt, target, in, in->as_needed, 0, why))
				return false;
			any = true;
		} else if (strcmp(r.token, "SEARCH_DIR") == 0) {
			if (!script_token(&r) || strcmp(r.token, "(") || !script_token(&r))
				break;
			add_string(&opt->lib_dirs, &opt->lib_dir_count, &opt->lib_dir_capacity, r.token);
			script_token(&r);
			any = true;
		} else if (strcmp(r.token, "OUTPUT_FORMAT") == 0 || strcmp(r.token, "OUTPUT_ARCH") == 0 ||
			   strcmp(r.token, "TARGET") == 0 || strcmp(r.token, "ENTRY") == 0 ||
			   strcmp(r.token, "EXTERN") == 0) {
			bool is_entry = strcmp(r.token, "ENTRY") == 0;
			bool is_extern = strcmp(r.token, "EXTERN") == 0;
			int level = 0;

			while (script_token(&r)) {
				if (strcmp(r.token, "(") == 0)
					level++;
				else if (strcmp(r.token, ")") == 0) {
					if (--level <= 0)
						break;
				} else if (is_entry && !opt->entry) {
					opt->entry = xstrdup(r.token);
				} else if (is_extern && strcmp(r.token, ",") != 0) {
					add_string(&opt->undefined, &opt->undefined_count,
						   &opt->undefined_capacity, r.token);
				}
			}
			any = true;
		} else if (!any) {
			*why = xstrdup("file format not recognized: neither ELF, an archive nor a linker script");
			return false;
		} else {
			*why = xasprintf("linker script: '%s' is not supported in an input script", r.token);
			return false;
		}
	}
	if (!any) {
		*why = xstrdup("file format not recognized: neither ELF, an archive nor a linker script");
		return false;
	}
	in->kind = INPUT_SCRIPT;
	return true;
}

/* ld skips an archive member that is no object unless it must load it;
   say so once per member, since it is most likely a packaging mistake. */
static void warn_foreign_members(const struct input *in)
{
	const struct archive *ar = in->archive;
	size_t i;

	if (ar->thin)
		return;
	for (i = 0; i < ar->member_count; i++) {
		const struct archive_member *m = &ar->members[i];

		if (!elfobj_is_elf(m->data, m->size) && !(in->whole_archive))
			warn("%s(%s): archive member is not an ELF object; ignored, as ld ignores it",
			     in->path, m->name);
	}
}

/* How many implicit linker scripts are open, one inside the other. */
static int script_depth;

static int open_one(struct input *in, struct link_options *opt)
{
	char *why = NULL;

	if (in->library) {
		in->path = find_library(opt, in->library, in->search_static);
		if (!in->path) {
			error("cannot find -l%s", in->library);
			return EXIT_INPUT;
		}
	} else if (in->path[0] != '/' && !is_file(in->path)) {
		/* A name in a script that is not in the current folder is searched
		   for in the library path, as ld does. */
		char *found = NULL;
		size_t i;

		for (i = 0; i < opt->lib_dir_count && !found; i++) {
			char *p = xasprintf("%s/%s", opt->lib_dirs[i], in->path);

			if (is_file(p))
				found = p;
			else
				free(p);
		}
		if (found) {
			free(in->path);
			in->path = found;
		}
	}
	output_input(in->path);
	if (map_file(in->path, &in->map, &in->map_size, &why) < 0)
		goto fail;
	if (elfobj_is_elf(in->map, in->map_size)) {
		struct unit *u = xcalloc(1, sizeof(*u));

		u->name = xstrdup(in->path);
		u->input = in;
		if (elfobj_open(&u->elf, u->name, in->map, in->map_size, &why) < 0) {
			free(u->name);
			free(u);
			goto fail;
		}
		u->is_shared = u->elf.type == ET_DYN;
		in->kind = u->is_shared ? INPUT_SHARED : INPUT_OBJECT;
		in->unit = u;
		return 0;
	}
	if (archive_is(in->map, in->map_size)) {
		in->archive = archive_parse(in->path, in->map, in->map_size, &why);
		if (!in->archive)
			goto fail;
		if (!in->archive->has_index && !in->whole_archive && in->archive->member_count > 0) {
			why = xstrdup("cannot search archive: it has no symbol index; run ranlib to add one");
			goto fail;
		}
		in->kind = INPUT_ARCHIVE;
		in->members = xcalloc(in->archive->member_count, sizeof(*in->members));
		warn_foreign_members(in);
		return 0;
	}
	if (script_depth >= 32) {
		why = xstrdup("linker scripts nested too deeply: does a script include itself?");
		goto fail;
	}
	if (script_parse(in, opt, &why)) {
		int rc;

		script_depth++;
		rc = inputs_open_children(in, opt);
		script_depth--;
		return rc;
	}
fail:
	error("%s: %s", in->path, why);
	free(why);
	in->kind = INPUT_FAILED;
	return EXIT_INPUT;
}

static bool keep_going_flag;

int inputs_open_children(struct input *group, struct link_options *opt)
{
	int status = 0;
	size_t i;

	for (i = 0; i < group->child_count; i++) {
		struct input *in = group->children[i];
		int rc;

		if (in->kind == INPUT_GROUP || in->kind == INPUT_SCRIPT)
			rc = inputs_open_children(in, opt);
		else
			rc = open_one(in, opt);
		if (rc) {
			status = EXIT_INPUT;
			if (!keep_going_flag)
				return status;
		}
	}
	return status;
}

int inputs_open(struct link_options *opt, bool keep_going)
{
	keep_going_flag = keep_going;
	return inputs_open_children(opt->root, opt);
}
