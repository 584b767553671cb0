#include "json.h"
#include "util.h"

#include <json-c/json_object.h>
#include <json-c/json_object_iterator.h>
#include <json-c/json_tokener.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper than any gcov output; bounds the copy's recursion too. */
enum { MAX_DEPTH = 64 };

static char parse_error[256];

/* Copies a json-c value into the plain tree the callers walk. */
static struct json *copy_value(struct json_object *from)
{
	struct json *v = xcalloc(1, sizeof(*v));
	size_t i, len;

	switch (json_object_get_type(from)) {
	case json_type_null:
		v->type = JSON_NULL;
		break;
	case json_type_boolean:
		v->type = JSON_BOOL;
		v->number = json_object_get_boolean(from);
		break;
	case json_type_int:
	case json_type_double:
		v->type = JSON_NUMBER;
		v->number = json_object_get_double(from);
		break;
	case json_type_string:
		v->type = JSON_STRING;
		len = (size_t)json_object_get_string_len(from);
		v->string = xmalloc(len + 1);
		memcpy(v->string, json_object_get_string(from), len);
		v->string[len] = '\0';
		break;
	case json_type_array:
		v->type = JSON_ARRAY;
		v->count = json_object_array_length(from);
		v->items = xcalloc(v->count ? v->count : 1, sizeof(*v->items));
		for (i = 0; i < v->count; i++)
			v->items[i] = copy_value(json_object_array_get_idx(from, i));
		break;
	case json_type_object: {
		struct json_object_iterator it = json_object_iter_begin(from);
		struct json_object_iterator end = json_object_iter_end(from);

		v->type = JSON_OBJECT;
		len = (size_t)json_object_object_length(from);
		v->items = xcalloc(len ? len : 1, sizeof(*v->items));
		v->keys = xcalloc(len ? len : 1, sizeof(*v->keys));
		for (; !json_object_iter_equal(&it, &end) && v->count < len; json_object_iter_next(&it)) {
			v->keys[v->count] = xstrdup(json_object_iter_peek_name(&it));
			v->items[v->count] = copy_value(json_object_iter_peek_value(&it));
			v->count++;
		}
		break;
	}
	}
	return v;
}

/* Says where offset is in text, as an editor counts: lines and characters
   (UTF-8 sequences, not bytes) from 1. */
static void set_error(const char *text, size_t offset, const char *what)
{
	unsigned long line = 1, column = 1;
	size_t i;

	for (i = 0; i < offset && text[i]; i++) {
		if (text[i] == '\n') {
			line++;
			column = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			column++;
		}
	}
	snprintf(parse_error, sizeof(parse_error), "line %lu column %lu: %s", line, column, what);
}

struct json *json_parse(const char *text, const char **error)
{
	size_t len = strlen(text), end;
	struct json_tokener *tokener;
	struct json_object *root;
	struct json *v = NULL;

	*error = NULL;
	if (len >= INT_MAX) {
		set_error(text, 0, "the document is too large (2 GiB or more)");
		*error = parse_error;
		return NULL;
	}
	tokener = json_tokener_new_ex(MAX_DEPTH);
	if (!tokener)
		fatal("out of memory");
	/* The terminating NUL ends a number at the very end of the text. */
	root = json_tokener_parse_ex(tokener, text, (int)len + 1);
	end = json_tokener_get_parse_end(tokener);
	/* A comment that runs to the end takes the NUL in too ("1//"). */
	if (end > len)
		end = len;
	if (json_tokener_get_error(tokener) != json_tokener_success) {
		set_error(text, end, json_tokener_error_desc(json_tokener_get_error(tokener)));
		goto done;
	}
	end += strspn(text + end, " \t\r\n");
	if (text[end] != '\0') {
		set_error(text, end, "trailing text after the value");
		goto done;
	}
	v = copy_value(root);
done:
	json_object_put(root);
	json_tokener_free(tokener);
	if (!v)
		*error = parse_error;
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
