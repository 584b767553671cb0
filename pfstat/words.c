#include "words.h"
#include "util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One word being built; text is never NULL once the word has begun, so
   that '' is a word. */
struct word {
	char *text;
	size_t len, capacity;
	bool quoted;              /* a quote or a backslash was seen */
};

static void word_add(struct word *w, const char *from, size_t n)
{
	grow_array(&w->text, &w->capacity, w->len + n + 1, 1);
	memcpy(w->text + w->len, from, n);
	w->len += n;
	w->text[w->len] = '\0';
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Whether the first len bytes of s are a shell variable's name. */
static bool is_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < len; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/* What a shell would do with the unquoted c, or NULL when it is just c. */
static const char *shell_only(char c, const struct word *w, bool first_word)
{
	if (strchr("|&;<>()", c))
		return "an operator (| & ; < > ( ))";
	if (c == '$' || c == '`')
		return "an expansion ($ or `)";
	if (strchr("*?[", c))
		return "a pattern (* ? [)";
	if (w->len == 0 && !w->quoted && c == '~')
		return "a ~ expansion";
	if (w->len == 0 && !w->quoted && c == '#')
		return "a comment (#)";
	if (first_word && c == '=' && !w->quoted && is_name(w->text ? w->text : "", w->len))
		return "an assignment (NAME=VALUE)";
	return NULL;
}

/* Reads one word at *p into w (p past it); NULL, or what is wrong (a
   static string), *quote_error telling an unclosed quote from a shell's
   work. */
static const char *read_word(const char **p, struct word *w, bool first_word, bool *quote_error)
{
	const char *s = *p, *what = NULL;

	*quote_error = false;
	word_add(w, "", 0);
	for (; *s && !blank(*s) && !what; s++) {
		if (*s == '\'') {
			const char *end = strchr(s + 1, '\'');

			if (!end) {
				*quote_error = true;
				what = "a ' is not closed";
				break;
			}
			word_add(w, s + 1, end - s - 1);
			w->quoted = true;
			s = end;
		} else if (*s == '"') {
			w->quoted = true;
			for (s++; *s && *s != '"' && !what; s++) {
				if (*s == '$' || *s == '`')
					what = "an expansion ($ or `)";
				else if (*s == '\\' && s[1] && strchr("\"\\\n", s[1]))
					word_add(w, ++s, 1);
				else
					word_add(w, s, 1);
			}
			if (!what && !*s) {
				*quote_error = true;
				what = "a \" is not closed";
			}
			if (what)
				break;
		} else if (*s == '\\') {
			if (!s[1]) {
				*quote_error = true;
				what = "it ends in a \\";
				break;
			}
			w->quoted = true;
			word_add(w, ++s, 1);
		} else if (!(what = shell_only(*s, w, first_word))) {
			word_add(w, s, 1);
		}
	}
	*p = s;
	return what;
}

char **words_split(const char *line, char **why)
{
	char **words = NULL;
	size_t n = 0, capacity = 0;
	const char *p = line;

	*why = NULL;
	for (;;) {
		struct word w = { 0 };
		const char *what;
		bool quote_error;

		while (blank(*p))
			p++;
		if (!*p)
			break;
		what = read_word(&p, &w, n == 0, &quote_error);
		if (what) {
			free(w.text);
			if (quote_error)
				*why = xasprintf("'%s': %s", line, what);
			else
				*why = xasprintf("'%s' holds %s: pfstat runs each command directly, as it runs the first "
						 "one, never through a shell; to measure shell lines, give both as sh -c "
						 "'...'", line, what);
			while (n)
				free(words[--n]);
			free(words);
			return NULL;
		}
		*ARRAY_PUSH(words, n, capacity) = w.text;
	}
	if (n == 0) {
		*why = xstrdup("an empty command");
		return NULL;
	}
	*ARRAY_PUSH(words, n, capacity) = NULL;
	return words;
}

/* Whether sh reads word (the first word when first) as itself, unquoted. */
static bool plain(const char *word, bool first)
{
	const char *p, *eq = strchr(word, '=');

	if (!*word || *word == '~' || *word == '#')
		return false;
	if (first && eq && is_name(word, eq - word))
		return false;
	for (p = word; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+./:,@%=", *p))
			return false;
	return true;
}

char *words_quote(char *const argv[])
{
	struct word line = { 0 };
	const char *p;
	size_t i;

	word_add(&line, "", 0);
	for (i = 0; argv[i]; i++) {
		if (i)
			word_add(&line, " ", 1);
		if (plain(argv[i], i == 0)) {
			word_add(&line, argv[i], strlen(argv[i]));
			continue;
		}
		word_add(&line, "'", 1);
		for (p = argv[i]; *p; p++) {
			if (*p == '\'')
				word_add(&line, "'\\''", 4);
			else
				word_add(&line, p, 1);
		}
		word_add(&line, "'", 1);
	}
	return line.text;
}

void words_free(char **words)
{
	size_t i;

	for (i = 0; words && words[i]; i++)
		free(words[i]);
	free(words);
}
