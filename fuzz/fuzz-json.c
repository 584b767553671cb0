/* fuzz-json: lib/json.c on JSON documents, walked as likely-check walks
   gcov's --json-format output.  Seeds: gcov output of a small --coverage
   build. */
#include "harness.h"
#include "json.h"
#include "util.h"

#include <stdlib.h>

/* Visits every value below v, reading the members gcov's output has. */
static size_t walk(const struct json *v)
{
	size_t i, n = 1;

	if (v->type == JSON_OBJECT) {
		json_get_string(v, "file", NULL);
		json_get_number(v, "line_number", 0);
		json_get_number(v, "count", 0);
		json_get(v, "functions");
	}
	if (v->type == JSON_STRING)
		harness_check(v->string != NULL, "a string value has its string");
	if (v->type == JSON_ARRAY || v->type == JSON_OBJECT)
		for (i = 0; i < v->count; i++) {
			if (v->type == JSON_OBJECT)
				harness_check(v->keys[i] != NULL, "an object member has a key");
			n += walk(v->items[i]);
		}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = harness_copy(data, size);
	const char *error;
	struct json *v;

	progname = "fuzz-json";
	v = json_parse(text, &error);
	harness_check(!v == (error != NULL), "a parse says why exactly when it fails");
	if (v) {
		walk(v);
		json_free(v);
	}
	free(text);
	return 0;
}
