/* json: a small JSON reader, for gcov's --json-format output. */
#ifndef LINKOPT_JSON_H
#define LINKOPT_JSON_H

#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_type type;
	double number;          /* JSON_NUMBER, JSON_BOOL */
	char *string;           /* JSON_STRING */
	struct json **items;    /* JSON_ARRAY values, JSON_OBJECT values */
	char **keys;            /* JSON_OBJECT */
	size_t count;
};

/* Parses text (NUL-terminated); NULL with *error set to what is wrong. */
struct json *json_parse(const char *text, const char **error);
/* The member key of an object, or NULL (also when v is not an object). */
const struct json *json_get(const struct json *v, const char *key);
/* The string of a string member, or fallback. */
const char *json_get_string(const struct json *v, const char *key, const char *fallback);
/* The number of a number member, or fallback. */
double json_get_number(const struct json *v, const char *key, double fallback);
/* Frees v and everything in it. */
void json_free(struct json *v);

#endif
