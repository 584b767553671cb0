#include "linker.h"
#include "proc.h"

#include <stdlib.h>
#include <string.h>

/* One program and option set: what it said, or why it could not say. */
struct asked {
	struct linker linker;
	char *why;                  /* NULL when linker holds the answer */
};

/* Every struct asked, keyed by its command line (linker.command). */
static struct strmap asked_by_command;

/* Symbols ld creates whatever its script says. */
static const char *const builtin_symbols[] = {
	"_GLOBAL_OFFSET_TABLE_", "_DYNAMIC", "__ehdr_start", "_PROCEDURE_LINKAGE_TABLE_",
	"__GNU_EH_FRAME_HDR", "_TLS_MODULE_BASE_", "__executable_start",
	/* x86-64 ld relaxes TLS calls to it away in a static link. */
	"__tls_get_addr", NULL,
};

/* The command that asks program for the default script ld_argv's link
   uses: the options that choose one script over another, then --verbose. */
static char **verbose_command(const char *program, char *const ld_argv[])
{
	char **argv = NULL;
	size_t n = 0, capacity = 0;
	int i;

	*ARRAY_PUSH(argv, n, capacity) = (char *)program;
	for (i = 0; ld_argv && ld_argv[i]; i++) {
		const char *a = ld_argv[i];

		if ((!strcmp(a, "-m") || !strcmp(a, "-z")) && ld_argv[i + 1]) {
			*ARRAY_PUSH(argv, n, capacity) = (char *)a;
			*ARRAY_PUSH(argv, n, capacity) = ld_argv[++i];
		} else if (!strcmp(a, "-pie") || !strcmp(a, "--pie") || !strcmp(a, "-no-pie") || !strcmp(a, "-shared") ||
			   !strcmp(a, "-static") || !strncmp(a, "-z", 2) || !strncmp(a, "-m", 2) || !strcmp(a, "-r") ||
			   !strcmp(a, "--no-dynamic-linker")) {
			*ARRAY_PUSH(argv, n, capacity) = (char *)a;
		}
	}
	*ARRAY_PUSH(argv, n, capacity) = "--verbose";
	*ARRAY_PUSH(argv, n, capacity) = NULL;
	return argv;
}

static bool is_name_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/* Notes the SEARCH_DIR("...") folders and the "name = ..." assignments,
   bare or inside PROVIDE (...), of one line of ld's output. */
static void scan_line(struct linker *l, char *line, size_t *dir_capacity)
{
	char *s = line;

	while ((s = strstr(s, "SEARCH_DIR(\"")) != NULL) {
		char *start = s + strlen("SEARCH_DIR(\""), *end;

		if (*start == '=')
			start++;
		end = strchr(start, '"');
		if (!end)
			break;
		*ARRAY_PUSH(l->search_dirs, l->search_dir_count, *dir_capacity) = xstrndup(start, end - start);
		s = end;
	}
	for (s = line; *s; s++) {
		char *start, *end;

		if (!is_name_start(*s) || (s > line && (s[-1] == '.' || is_name_char(s[-1]))))
			continue;
		start = s;
		while (is_name_char(*s))
			s++;
		end = s;
		while (*s == ' ')
			s++;
		if (s[0] == '=' && s[1] != '=') {
			char *name = xstrndup(start, end - start);
			void **slot = strmap_slot(&l->defines, name);

			if (*slot)
				free(name);
			*slot = (void *)1;
		}
		s = end - 1;
	}
}

/* The row of '=' that ld prints above and below its default script. */
#define RULE "=================================================="

/* The default script in ld's --verbose output; NULL if there is none. */
static char *script_of(const char *output)
{
	const char *start = strstr(output, RULE "\n"), *end;

	if (!start)
		return NULL;
	start += strlen(RULE "\n");
	end = strstr(start, "\n" RULE);
	return end ? xstrndup(start, end - start) : NULL;
}

static void read_output(struct linker *l, const char *output)
{
	char *text = xstrdup(output), *line, *next;
	size_t dir_capacity = 0;

	l->script = script_of(output);
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		scan_line(l, line, &dir_capacity);
	}
	free(text);
}

/* Runs argv, the command of a, and keeps what it says or why it failed. */
static void ask(struct asked *a, char **argv)
{
	char *err, *out;
	int status;

	out = proc_output(argv, &status, &err);
	if (status != 0) {
		char *failure = proc_failure(status, err);

		a->why = xasprintf("'%s' failed: %s", a->linker.command, failure);
		free(failure);
	} else {
		read_output(&a->linker, out);
	}
	free(out);
	free(err);
}

const struct linker *linker_get(const char *program, char *const ld_argv[], char **why)
{
	char **argv = verbose_command(program, ld_argv), *command = proc_command_line(argv);
	void **slot = strmap_slot(&asked_by_command, command);
	struct asked *a = *slot;

	if (a) {
		free(command);
	} else {
		a = *slot = xcalloc(1, sizeof(*a));
		a->linker.command = command;
		ask(a, argv);
	}
	free(argv);
	if (a->why) {
		*why = xstrdup(a->why);
		return NULL;
	}
	return &a->linker;
}

bool linker_defines(const struct linker *linker, const char *name)
{
	size_t i;

	if (linker && strmap_get(&linker->defines, name))
		return true;
	for (i = 0; builtin_symbols[i]; i++)
		if (!strcmp(builtin_symbols[i], name))
			return true;
	return false;
}
