#include "json.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct parser {
	const char *p;
	const char *error;
};

static void skip_blanks(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static struct json *parse_value(struct parser *ps, int depth);

static char *parse_string(struct parser *ps)
{
	size_t len = 0, cap = 16;
	char *s = xmalloc(cap);

	ps->p++;
	while (*ps->p != '"') {
		char c = *ps->p++;

		if (c == '\0') {
			ps->error = "unterminated string";
			free(s);
			return NULL;
		}
		if (c == '\\') {
			c = *ps->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u':
				/* names in gcov output are ASCII; keep a marker for the rest */
				if (strlen(ps->p) < 4) {
					ps->error = "bad \\u escape";
					free(s);
					return NULL;
				}
				c = '?';
				if (strncmp(ps->p, "00", 2) == 0)
					c = (char)strtol((char[]){ ps->p[2], ps->p[3], 0 }, NULL, 16);
				ps->p += 4;
				break;
			case '\0':
				ps->error = "unterminated string";
				free(s);
				return NULL;
			default: break;
			}
		}
		grow_array(&s, &cap, len + 2, 1);
		s[len++] = c;
	}
	ps->p++;
	s[len] = '\0';
	return s;
}

static struct json *parse_container(struct parser *ps, int depth, bool object)
{
	struct json *v = xcalloc(1, sizeof(*v));
	size_t cap = 0, key_cap = 0, key_count = 0;

	v->type = object ? JSON_OBJECT : JSON_ARRAY;
	ps->p++;
	skip_blanks(ps);
	if (*ps->p == (object ? '}' : ']')) {
		ps->p++;
		return v;
	}
	for (;;) {
		struct json *item;

		skip_blanks(ps);
		if (object) {
			char *key;

			if (*ps->p != '"') {
				ps->error = "expected a member name";
				goto fail;
			}
			key = parse_string(ps);
			if (!key)
				goto fail;
			*ARRAY_PUSH(v->keys, key_count, key_cap) = key;
			skip_blanks(ps);
			if (*ps->p != ':') {
				ps->error = "expected ':'";
				goto fail;
			}
			ps->p++;
		}
		item = parse_value(ps, depth + 1);
		if (!item)
			goto fail;
		*ARRAY_PUSH(v->items, v->count, cap) = item;
		skip_blanks(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == (object ? '}' : ']')) {
			ps->p++;
			return v;
		}
		ps->error = object ? "expected ',' or '}'" : "expected ',' or ']'";
		goto fail;
	}
fail:
	if (object && key_count > v->count) {
		free(v->keys[key_count - 1]);
		key_count--;
	}
	json_free(v);
	return NULL;
}

static struct json *parse_value(struct parser *ps, int depth)
{
	struct json *v;
	char *end;

	if (depth > 64) {
		ps->error = "nested too deeply";
		return NULL;
	}
	skip_blanks(ps);
	switch (*ps->p) {
	case '{': return parse_container(ps, depth, true);
	case '[': return parse_container(ps, depth, false);
	case '"':
		v = xcalloc(1, sizeof(*v));
		v->type = JSON_STRING;
		v->string = parse_string(ps);
		if (!v->string) {
			free(v);
			return NULL;
		}
		return v;
	}
	v = xcalloc(1, sizeof(*v));
	if (strncmp(ps->p, "true", 4) == 0) {
		v->type = JSON_BOOL;
		v->number = 1;
		ps->p += 4;
	} else if (strncmp(ps->p, "false", 5) == 0) {
		v->type = JSON_BOOL;
		ps->p += 5;
	} else if (strncmp(ps->p, "null", 4) == 0) {
		ps->p += 4;
	} else {
		v->type = JSON_NUMBER;
		v->number = strtod(ps->p, &end);
		if (end == ps->p) {
			ps->error = "unexpected character";
			free(v);
			return NULL;
		}
		ps->p = end;
	}
	return v;
}

struct json *json_parse(const char *text, const char **error)
{
	struct parser ps = { text, NULL };
	struct json *v = parse_value(&ps, 0);

	if (v) {
		skip_blanks(&ps);
		if (*ps.p != '\0') {
			ps.error = "trailing text after the value";
			json_free(v);
			v = NULL;
		}
	}
	*error = ps.error;
	return v;
}

const struct json *json_get(const struct json *v, const char *key)
{
	size_t i;

	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (i = 0; i < v->count; i++)
		if (strcmp(v->keys[i], key) == 0)
			return v->items[i];
	return NULL;
}

const char *json_get_string(const struct json *v, const char *key, const char *fallback)
{
	const struct json *m = json_get(v, key);

	return m && m->type == JSON_STRING ? m->string : fallback;
}

double json_get_number(const struct json *v, const char *key, double fallback)
{
	const struct json *m = json_get(v, key);

	return m && (m->type == JSON_NUMBER || m->type == JSON_BOOL) ? m->number : fallback;
}

void json_free(struct json *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->count; i++) {
		json_free(v->items[i]);
		if (v->type == JSON_OBJECT)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
	free(v);
}
