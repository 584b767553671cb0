/* linkopt-cc: the compiler wrapper of linkopt-startup(1).  Put before the
   compiler (CC="linkopt-cc --dir=DIR gcc" for configure and meson, or as
   CMake's linker launcher), it compiles with -ffunction-sections
   -fdata-sections added, and for each link of a program or shared library
   records the command in DIR/NAME.link (NAME: the output's file name, or
   --name) and adds the order linkopt-startup made for that very output
   (DIR/NAME.apply).  Everything else runs as it is. */
#define _GNU_SOURCE
#include "cli.h"
#include "linkcmd.h"
#include "proc.h"
#include "record.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *opt_dir, *opt_name;
static bool opt_no_sections, opt_record_only;

static const struct cli_option options[] = {
	{ "--dir", 0, CLI_STRING, &opt_dir, "DIR",
	  "the absolute path of the folder of the records and orders\n"
	  "(default: $LINKOPT_DIR); created when missing" },
	{ "--name", 0, CLI_STRING, &opt_name, "NAME",
	  "the name of the output in DIR (default: the file name\n"
	  "of the link's -o); for one link launcher per target" },
	{ "--no-sections", 0, CLI_FLAG, &opt_no_sections, 0,
	  "compile without adding -ffunction-sections -fdata-sections" },
	{ "--record-only", 0, CLI_FLAG, &opt_record_only, 0,
	  "record the link and run nothing (make's fragment: the link\n"
	  "is linkopt-startup's to run); a command that is not a link\n"
	  "is refused" },
	{ 0 }
};

static const struct cli_command command = {
	.name = "linkopt-cc",
	.operands = "COMPILER [ARG]...",
	.description =
		"Runs COMPILER ARG..., the way a build runs its compiler.  A compile gets\n"
		"-ffunction-sections -fdata-sections added.  A link of a program or shared\n"
		"library (-o OUTPUT, objects and libraries; with sources too, each source is\n"
		"compiled apart into DIR/NAME.objects/ first) is recorded in\n"
		"DIR/NAME.link for linkopt-startup, and gets the order linkopt-startup made\n"
		"for that output, if there is one (DIR/NAME.apply).  When the ordered link\n"
		"fails, the link runs again without the order, with a warning.\n",
	.options = options,
	.footer = "Exit status: the compiler's; 1 when the link cannot be recorded, 2 wrong usage.\n",
	.flags = CLI_STOP_AT_OPERAND,
	.min_operands = 1,
	.missing = "no compiler given",
};

static void __attribute__((noreturn)) run(char **argv)
{
	execvp(argv[0], argv);
	fatal("%s: cannot run: %s", argv[0], strerror(errno));
}

/* argv with each response file (@FILE) replaced by a copy in the records'
   folder: build systems remove theirs after the link (ninja does). */
static char **keep_response_files(char **argv, const char *dir, const char *name)
{
	int n = linkcmd_count(argv), i, copies = 0;
	char **out = xcalloc(n + 1, sizeof(*out)), *why;

	for (i = 0; i < n; i++) {
		out[i] = argv[i];
		if (argv[i][0] != '@' || access(argv[i] + 1, R_OK) != 0)
			continue;
		char *suffix = xasprintf("rsp.%d", copies++), *copy = record_path(dir, name, suffix);

		if (record_copy_file(argv[i] + 1, copy, &why) < 0)
			fatal("%s", why);
		out[i] = xasprintf("@%s", copy);
		free(suffix);
		free(copy);
	}
	return out;
}

/* Records the link argv of output run in cwd as DIR/NAME.link, the
   response files it names copied; returns the command as recorded. */
static char **record_link(char **argv, const char *dir, const char *name, const char *output, const char *cwd)
{
	char **kept = keep_response_files(argv, dir, name), **strings, *path = record_path(dir, name, "link"), *why;
	int n = linkcmd_count(kept), i;

	strings = xcalloc(n + 3, sizeof(*strings));
	strings[0] = (char *)output;
	strings[1] = (char *)cwd;
	for (i = 0; i < n; i++)
		strings[2 + i] = kept[i];
	if (record_write(path, RECORD_LINK_TAG, strings, n + 2, &why) < 0)
		fatal("%s", why);
	free(strings);
	free(path);
	return kept;
}

/* The name output is recorded under: name, unless DIR/name.link is of
   another output (two programs called test in two folders): then, said
   once in a warning, the output's path with each '/' made '+' (an explicit
   --name is the user's to keep unique, and is refused). */
static const char *unique_name(const char *dir, const char *name, const char *output, bool given)
{
	char *path = record_path(dir, name, "link"), *why, *mangled, *p;
	struct record rec;
	bool other;

	if (record_read(path, RECORD_LINK_TAG, &rec, &why) < 0) {
		free(why);
		free(path);
		return name;
	}
	other = rec.count >= 1 && strcmp(rec.strings[0], output) != 0;
	if (!other) {
		record_free(&rec);
		free(path);
		return name;
	}
	if (given)
		fatal("%s: records the link of %s, not of %s: give each output its own --name", path, rec.strings[0],
		      output);
	mangled = xstrdup(output + 1);
	for (p = mangled; *p; p++)
		if (*p == '/')
			*p = '+';
	warn("%s: two outputs named %s (%s is recorded as %s): this one is recorded as %s, which linkopt-startup "
	     "--target takes, as it takes its path", output, name, rec.strings[0], name, mangled);
	record_free(&rec);
	free(path);
	return mangled;
}

/* Says, before a link with its order, how many of the files the link reads
   changed (size or time) since the order was made from them
   (DIR/NAME.inputs, which linkopt-startup writes): an order of sections
   that no longer exist applies to little. */
static void warn_changed_inputs(const char *dir, const char *name, char *const *argv, const char *cwd)
{
	char *path = record_path(dir, name, "inputs"), *why;
	struct record rec;
	int i, changed = 0, files = 0;

	if (record_read(path, RECORD_INPUTS_TAG, &rec, &why) < 0) {
		free(why);
		free(path);
		return;
	}
	(void)argv;
	for (i = 0; i + 2 < rec.count; i += 3) {
		char *file = record_absolute(cwd, rec.strings[i]);
		struct stat st;
		char stamp[64];

		files++;
		if (stat(file, &st) < 0) {
			changed++;
		} else {
			snprintf(stamp, sizeof(stamp), "%lld.%09ld", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
			if (strtoull(rec.strings[i + 1], NULL, 10) != (unsigned long long)st.st_size ||
			    strcmp(rec.strings[i + 2], stamp) != 0)
				changed++;
		}
		free(file);
	}
	if (changed)
		warn("%s: %d of the %d files its link reads changed since its order was made: the order matches only "
		     "what is left of them; run linkopt-startup again", name, changed, files);
	record_free(&rec);
	free(path);
}

/* A compile and link in one command (gcc -o prog main.cc x.o): each
   source compiled apart, as the driver itself does, but into an object
   that stays (DIR/NAME.objects/N-BASE.o, which the record of the link
   names and linkopt-startup links again), with extra added; returns the
   link of those objects.  Exits with the compiler's status when a compile
   fails. */
static char **compile_apart(char **argv, const char *dir, const char *name, char *const *extra)
{
	char **sources = linkcmd_sources(argv), **objects, *folder = record_path(dir, name, "objects");
	int i, n = linkcmd_count(sources);
	struct proc_request request = { 0 };
	struct proc_result result;

	if (mkdir(folder, 0777) < 0 && errno != EEXIST)
		fatal("%s: mkdir failed: %s", folder, strerror(errno));
	objects = xcalloc(n + 1, sizeof(*objects));
	for (i = 0; i < n; i++) {
		const char *base = strrchr(sources[i], '/') ? strrchr(sources[i], '/') + 1 : sources[i];
		const char *dot = strrchr(base, '.');

		objects[i] = xasprintf("%s/%d-%.*s.o", folder, i, (int)(dot ? dot - base : (long)strlen(base)), base);
		char **compile = linkcmd_compile_part(argv, i, objects[i], extra);

		request.argv = compile;
		if (proc_exec(&request, &result) != 0)
			exit(result.status > 0 && result.status < 256 ? result.status : 1);
		proc_result_free(&result);
		free(compile);
	}
	free(sources);
	free(folder);
	return linkcmd_link_part(argv, objects);
}

/* After an ordered link of output: when linkopt-startup rewrote that very
   link (DIR/NAME.rewrite: the ordered link and its rewrite, linkopt-bolt's
   or its cut), the output becomes the rewrite again; a link of other bytes
   keeps the order only, with a warning.  Returns the exit status. */
static int apply_rewrite(const char *dir, const char *name, const char *output)
{
	char *path = record_path(dir, name, "rewrite"), *why = NULL;
	struct record rewrite;
	int status = 0;

	if (record_read(path, RECORD_REWRITE_TAG, &rewrite, &why) < 0) {
		if (errno != ENOENT) {
			error("%s", why);
			status = 1;
		}
		free(why);
		free(path);
		return status;
	}
	if (rewrite.count != 2) {
		error("%s: not a rewrite record", path);
		status = 1;
	} else if (!record_same_bytes(output, rewrite.strings[0])) {
		warn("%s: linked with its order, but not the link linkopt-startup rewrote (%s): the rewrite is left out; run "
		     "linkopt-startup again", name, rewrite.strings[0]);
	} else if (record_copy_file(rewrite.strings[1], output, &why) < 0) {
		/* a complete file or none, with the mode of the one it replaces */
		error("%s: cannot put the rewrite in place: %s", output, why);
		status = 1;
	}
	free(why);
	record_free(&rewrite);
	free(path);
	return status;
}

int main(int argc, char **argv)
{
	char **compiler, cwd[PATH_MAX], *output, *apply_path, *why, **ordered;
	const char *dir = opt_dir, *name, *slash;
	struct proc_request request = { 0 };
	struct proc_result result;
	struct record apply;
	static char *sections[] = { "-ffunction-sections", "-fdata-sections", NULL };
	bool split;

	progname = "linkopt-cc";
	cli_parse(&command, argc, argv, &compiler);
	if (opt_record_only && linkcmd_classify(compiler) != LINKCMD_LINK)
		cli_usage_error("--record-only: '%s' is not a link of a program or shared library (an output -o, "
				"objects, archives or libraries, no source)", proc_command_line(compiler));
	split = !opt_record_only && linkcmd_compiles_and_links(compiler);
	switch (linkcmd_classify(compiler)) {
	case LINKCMD_COMPILE:
		if (split)
			break;
		run(opt_no_sections ? compiler : linkcmd_rewrite(compiler, NULL, sections));
	case LINKCMD_OTHER:
		run(compiler);
	case LINKCMD_LINK:
		break;
	}

	dir = opt_dir ? opt_dir : getenv("LINKOPT_DIR");
	if (!dir || !*dir)
		cli_usage_error("no folder for the records: give --dir=DIR or set LINKOPT_DIR");
	if (dir[0] != '/')
		cli_usage_error("--dir '%s' is not an absolute path: the build links in many folders", dir);
	if (!getcwd(cwd, sizeof(cwd)))
		fatal("getcwd failed: %s", strerror(errno));
	output = record_absolute(cwd, linkcmd_output(compiler));
	slash = strrchr(output, '/');
	name = opt_name ? opt_name : slash + 1;
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		cli_usage_error("--name '%s' is not a file name", name);
	/* autoconf's checks link conftest programs nobody orders */
	if (!opt_name && !opt_record_only && !strncmp(name, "conftest", 8))
		run(split && !opt_no_sections ? linkcmd_rewrite(compiler, NULL, sections) : compiler);
	if (record_make_dir(dir, &why) < 0)
		fatal("%s", why);
	name = unique_name(dir, name, output, opt_name != NULL);
	if (split)
		compiler = compile_apart(compiler, dir, name, opt_no_sections ? NULL : sections);
	if (opt_record_only) {
		record_link(compiler, dir, name, output, cwd);
		return 0;
	}

	/* the link runs first; only a link that worked is recorded */
	apply_path = record_path(dir, name, "apply");
	ordered = NULL;
	if (record_read(apply_path, RECORD_APPLY_TAG, &apply, &why) < 0) {
		if (errno != ENOENT)
			warn("%s; linked without an order", why);
	} else if (apply.count < 1 || strcmp(apply.strings[0], output) != 0) {
		warn("%s: the order is for a link of '%s', not of '%s': linked without it", apply_path,
		     apply.count ? apply.strings[0] : "", output);
	} else {
		ordered = linkcmd_rewrite(compiler, NULL, apply.strings + 1);
		warn_changed_inputs(dir, name, compiler, cwd);
	}
	if (ordered) {
		request.argv = ordered;
		if (proc_exec(&request, &result) == 0) {
			record_link(compiler, dir, name, output, cwd);
			return apply_rewrite(dir, name, output);
		}
		warn("%s: the link with the order of %s failed (%s): linking again without it; run "
		     "linkopt-startup again for a new order", name, apply_path, proc_describe(result.status));
	}
	request.argv = compiler;
	if (proc_exec(&request, &result) != 0)
		return result.status > 0 && result.status < 256 ? result.status : 1;
	record_link(compiler, dir, name, output, cwd);
	return 0;
}
