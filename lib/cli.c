#include "cli.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The command whose --help a usage error points at. */
static const char *help_name;
/* Set while cli_dispatch runs its fallback: operands naming a subcommand
   are refused, since a subcommand after options is a common slip. */
static const struct cli_program *fallback_of;

void cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", help_name ? help_name : progname);
	exit(EXIT_USAGE);
}

bool cli_unsigned(const char *s, unsigned long *value)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*value = strtoul(s, &end, 10);
	return !*end && !errno;
}

const char *cli_read_ahead_kb(const char *s, unsigned long *kb)
{
	if (!cli_unsigned(s, kb) || *kb > 1048576)
		return "is not a number of KiB from 0 to 1048576";
	return NULL;
}

const char *cli_untraced_segment_kb(const char *s, unsigned long *kb)
{
	if (!cli_unsigned(s, kb) || *kb < 4 || *kb > 1048576 || *kb % 4)
		return "is not a multiple of 4 from 4 to 1048576 (KiB)";
	return NULL;
}

bool cli_number(const char *s, double *value)
{
	char *end;

	errno = 0;
	*value = strtod(s, &end);
	return end != s && !*end && !errno && isfinite(*value);
}

static bool takes_value(const struct cli_option *o)
{
	return o->kind != CLI_FLAG;
}

/* "--name=a|b|c", "--name VALUE" or "--name", as the synopsis and the
   option list show it. */
static char *option_form(const struct cli_option *o, bool with_short)
{
	char *value = NULL, *form;

	if (o->kind == CLI_CHOICE) {
		size_t k;

		value = xstrdup("");
		for (k = 0; o->choices[k]; k++) {
			char *more = xasprintf("%s%s%s", value, k ? "|" : "", o->choices[k]);

			free(value);
			value = more;
		}
	} else if (takes_value(o)) {
		value = xstrdup(o->value_name ? o->value_name : "VALUE");
	}
	if (with_short && o->short_name)
		form = value ? xasprintf("-%c, %s=%s", o->short_name, o->name, value)
			     : xasprintf("-%c, %s", o->short_name, o->name);
	else
		form = value ? xasprintf("%s%s%s", o->name, o->kind == CLI_CHOICE ? "=" : " ", value)
			     : xstrdup(o->name);
	free(value);
	return form;
}

/* Prints words after a prefix, wrapped at 79 columns, continuation lines
   indented to the prefix's width. */
static void print_wrapped(FILE *f, const char *prefix, char **words, size_t count)
{
	size_t indent = strlen(prefix) + 1, column = indent, k;

	fputs(prefix, f);
	for (k = 0; k < count; k++) {
		size_t len = strlen(words[k]);

		if (column > indent && column + 1 + len > 79) {
			fprintf(f, "\n%*s", (int)indent - 1, "");
			column = indent;
		}
		fputc(' ', f);
		if (column > indent)
			column++;
		fputs(words[k], f);
		column += len;
	}
	fputc('\n', f);
}

static void print_synopsis(FILE *f, const struct cli_command *cmd, const char *lead)
{
	const struct cli_option *o;
	char **words = NULL, *prefix = xasprintf("%s%s", lead, cmd->name);
	size_t count = 0, capacity = 0, k;
	const char *line, *next;

	for (o = cmd->options; o && o->name; o++) {
		char *form = option_form(o, false);

		if (!o->help)
			;
		else if (o->short_name && o->kind == CLI_FLAG)
			*ARRAY_PUSH(words, count, capacity) = xasprintf("[-%c|%s]", o->short_name, form);
		else
			*ARRAY_PUSH(words, count, capacity) =
				xasprintf("[%s]%s", form, o->kind == CLI_LIST || o->repeatable ? "..." : "");
		free(form);
	}
	if (cmd->operands && *cmd->operands)
		*ARRAY_PUSH(words, count, capacity) = xstrdup(cmd->operands);
	print_wrapped(f, prefix, words, count);
	for (line = cmd->also; line && *line; line = next) {
		next = strchr(line, '\n');
		fprintf(f, "%*s%s %.*s\n", (int)strlen(lead), "", cmd->name,
			(int)(next ? (size_t)(next - line) : strlen(line)), line);
		next = next ? next + 1 : NULL;
	}
	for (k = 0; k < count; k++)
		free(words[k]);
	free(words);
	free(prefix);
}

static void print_options(FILE *f, const struct cli_option *options)
{
	const struct cli_option *o;

	for (o = options; o && o->name; o++) {
		char *form;
		const char *line, *next;
		int width;

		if (!o->help)
			continue;
		form = option_form(o, true);
		width = fprintf(f, "  %s%s", o->short_name ? "" : "    ", form);
		if (width > 22) {
			fputc('\n', f);
			width = 0;
		}
		for (line = o->help; line; line = next, width = 0) {
			next = strchr(line, '\n');
			fprintf(f, "%*s%.*s\n", 24 - width, "", (int)(next ? (size_t)(next - line) : strlen(line)), line);
			next = next ? next + 1 : NULL;
		}
		free(form);
	}
	fprintf(f, "%-24s%s\n%-24s%s\n", "  -h, --help", "this text", "      --version", "the version");
}

void cli_usage(const struct cli_command *cmd, void *out)
{
	FILE *f = out;

	print_synopsis(f, cmd, "usage: ");
	if (cmd->description)
		fprintf(f, "\n%s", cmd->description);
	fputc('\n', f);
	print_options(f, cmd->options);
	if (cmd->footer)
		fprintf(f, "\n%s", cmd->footer);
}

static void print_version(const char *name)
{
	char *program = xstrndup(name, strcspn(name, " "));

	printf("%s (linkopt) %s\n", program, LINKOPT_VERSION);
	free(program);
	stdout_close_or_die();
	exit(EXIT_OK);
}

/* The table row for a long option (name up to '=' or the end), or NULL. */
static const struct cli_option *find_long(const struct cli_option *options, const char *arg, size_t len)
{
	const struct cli_option *o;

	for (o = options; o && o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, arg, len))
			return o;
	return NULL;
}

static const struct cli_option *find_short(const struct cli_option *options, char c)
{
	const struct cli_option *o;

	for (o = options; o && o->name; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

/* Stores value (NULL for a flag) into o's target; a wrong value is a usage
   error naming the option as the user spelled it. */
static void apply(const struct cli_option *o, const char *spelled, const char *value)
{
	const char *why = NULL;
	size_t k;

	switch (o->kind) {
	case CLI_FLAG:
		if (o->target)
			*(bool *)o->target = true;
		if (o->set)
			why = o->set(o->target, NULL);
		break;
	case CLI_STRING:
		*(const char **)o->target = value;
		break;
	case CLI_LIST: {
		struct cli_list *list = o->target;

		*ARRAY_PUSH(list->items, list->count, list->capacity) = value;
		break;
	}
	case CLI_CHOICE:
		for (k = 0; o->choices[k]; k++)
			if (!strcmp(o->choices[k], value)) {
				*(int *)o->target = (int)k;
				return;
			}
		{
			char *list = xstrdup("");

			for (k = 0; o->choices[k]; k++) {
				char *more = xasprintf("%s%s%s", list,
						       !k ? "" : o->choices[k + 1] ? ", " : " or ", o->choices[k]);

				free(list);
				list = more;
			}
			cli_usage_error("%s: '%s' is not %s", spelled, value, list);
		}
	case CLI_CALL:
		why = o->set(o->target, value);
		break;
	}
	if (why)
		cli_usage_error("%s: '%s' %s", spelled, value ? value : "", why);
}

/* Handles argv[*i], a long option ("--name" or "--name=value"); false if
   the table does not know it. */
static bool long_option(const struct cli_command *cmd, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct cli_option *o = find_long(cmd->options, arg, len);

	if (!o)
		return false;
	if (!takes_value(o)) {
		if (eq)
			cli_usage_error("option '%.*s' takes no value", (int)len, arg);
		apply(o, o->name, NULL);
	} else if (eq) {
		apply(o, o->name, eq + 1);
	} else {
		if (*i + 1 >= argc)
			cli_usage_error("option '%s' needs a value (%s)", o->name,
					o->value_name ? o->value_name : "VALUE");
		apply(o, o->name, argv[++*i]);
	}
	return true;
}

/* Handles argv[*i], a cluster of short options ("-q", "-qv", "-nVALUE",
   "-n VALUE"); false if its first letter is unknown. */
static bool short_options(const struct cli_command *cmd, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *p;

	if (!find_short(cmd->options, arg[1]))
		return false;
	for (p = arg + 1; *p; p++) {
		const struct cli_option *o = find_short(cmd->options, *p);
		char spelled[3] = { '-', *p, 0 };

		if (!o)
			cli_usage_error("unrecognized option '-%c'", *p);
		if (!takes_value(o)) {
			apply(o, spelled, NULL);
			continue;
		}
		if (p[1]) {
			apply(o, spelled, p + 1);
		} else {
			if (*i + 1 >= argc)
				cli_usage_error("option '%s' needs a value (%s)", spelled,
						o->value_name ? o->value_name : "VALUE");
			apply(o, spelled, argv[++*i]);
		}
		break;
	}
	return true;
}

static bool is_help(const struct cli_command *cmd, int argc, const char *arg)
{
	if (!strcmp(arg, "--help"))
		return true;
	return !strcmp(arg, "-h") && (!cmd->pass_option || argc == 2) && !find_short(cmd->options, 'h');
}

/* A fallback command's operand that names a subcommand: the user meant
   the subcommand but put options before it. */
static void refuse_misplaced_command(const char *operand)
{
	const struct cli_subcommand *s;

	for (s = fallback_of->commands; s->name; s++)
		if (!strcmp(s->name, operand))
			cli_usage_error("'%s' is a command: put it first (%s %s [options])", operand,
					fallback_of->name, operand);
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, char ***operands)
{
	char **list = xcalloc(argc + 1, sizeof(char *));
	int count = 0, i, before_separator = -1;
	bool options_end = false;

	help_name = cmd->name;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (options_end || arg[0] != '-' || !arg[1]) {
			list[count++] = argv[i];
			if (cmd->flags & CLI_STOP_AT_OPERAND)
				options_end = true;
			continue;
		}
		if (!strcmp(arg, "--")) {
			options_end = true;
			before_separator = count;
			if (cmd->flags & CLI_KEEP_SEPARATOR)
				list[count++] = argv[i];
			continue;
		}
		if (is_help(cmd, argc, arg)) {
			cli_usage(cmd, stdout);
			stdout_close_or_die();
			exit(EXIT_OK);
		}
		if (!strcmp(arg, "--version"))
			print_version(cmd->name);
		if (arg[1] == '-' ? long_option(cmd, argc, argv, &i) : short_options(cmd, argc, argv, &i))
			continue;
		if (cmd->pass_option && cmd->pass_option(arg)) {
			list[count++] = argv[i];
			continue;
		}
		cli_usage_error("unrecognized option '%s'", arg);
	}
	/* after "--", a word is what the user wrote */
	if (fallback_of)
		for (i = 0; i < (before_separator < 0 ? count : before_separator); i++)
			refuse_misplaced_command(list[i]);
	if (count < cmd->min_operands) {
		const char *sub = strchr(cmd->name, ' ');

		if (sub)
			cli_usage_error("%s: %s", sub + 1, cmd->missing ? cmd->missing : "an operand is missing");
		cli_usage_error("%s", cmd->missing ? cmd->missing : "an operand is missing");
	}
	*operands = list;
	return count;
}

static void program_usage(const struct cli_program *program, FILE *f)
{
	const struct cli_subcommand *s;
	bool first = true;

	if (program->fallback) {
		print_synopsis(f, program->fallback->command, "usage: ");
		first = false;
	}
	for (s = program->commands; s->name; s++) {
		print_synopsis(f, s->command, first ? "usage: " : "       ");
		first = false;
	}
	if (program->description)
		fprintf(f, "\n%s", program->description);
	fprintf(f, "\nCommands:\n");
	for (s = program->commands; s->name; s++)
		fprintf(f, "  %-14s %s\n", s->name, s->summary);
	fprintf(f, "\n'%s COMMAND --help' lists a command's options.\n", program->name);
	if (program->footer)
		fprintf(f, "\n%s", program->footer);
}

int cli_dispatch(const struct cli_program *program, int argc, char **argv)
{
	const struct cli_subcommand *s;
	const char *word = argc > 1 ? argv[1] : NULL;

	help_name = program->name;
	if (word && (!strcmp(word, "--help") || !strcmp(word, "-h"))) {
		program_usage(program, stdout);
		stdout_close_or_die();
		exit(EXIT_OK);
	}
	if (word && !strcmp(word, "--version"))
		print_version(program->name);
	for (s = program->commands; word && s->name; s++)
		if (!strcmp(s->name, word))
			return s->run(argc - 1, argv + 1);
	if (!program->fallback) {
		if (!word)
			cli_usage_error("no command given");
		if (word[0] == '-')
			cli_usage_error("unrecognized option '%s'", word);
		cli_usage_error("unknown command '%s'", word);
	}
	fallback_of = program;
	return program->fallback->run(argc, argv);
}
