/* json: a JSON document read with json-c into a plain tree, for gcov's
   --json-format output.  Strings are UTF-8: \u escapes, surrogate pairs
   included, are decoded; bytes gcc writes unescaped (a file name that is
   not UTF-8, a control character) are kept as they are. */
#ifndef LINKOPT_JSON_H
#define LINKOPT_JSON_H

#include <stddef.h>

enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_kind type;
	double number;          /* JSON_NUMBER, JSON_BOOL */
	char *string;           /* JSON_STRING */
	struct json **items;    /* JSON_ARRAY values, JSON_OBJECT values */
	char **keys;            /* JSON_OBJECT */
	size_t count;
};

/* Parses text (NUL-terminated, one value and blanks); NULL with *error set
   to "line L column C: what is wrong", kept until the next json_parse. */
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
