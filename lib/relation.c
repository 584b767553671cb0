#include "relation.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static bool has_build_id(const struct trace_object *o)
{
	return o->build_id[0] && strcmp(o->build_id, "none") != 0;
}

enum relation relation_of(const struct trace_object *before, const struct trace_object *after, bool same_program)
{
	bool same_path = !strcmp(before->path, after->path);

	if (has_build_id(before) && !strcmp(before->build_id, after->build_id))
		return RELATION_SAME_BUILD;
	if (same_path)
		return has_build_id(before) || has_build_id(after) ? RELATION_RELINKED_IN_PLACE : RELATION_SAME_PROGRAM;
	if (!strcmp(base_name(before->path), base_name(after->path)))
		return RELATION_RELINKED_ELSEWHERE;
	return same_program ? RELATION_RELINKED_RENAMED : RELATION_UNRELATED;
}

char *relation_describe(enum relation relation, const struct trace_object *before, const struct trace_object *after)
{
	char *was = trace_quote(before->path), *now = trace_quote(after->path), *text = NULL;

	switch (relation) {
	case RELATION_SAME_BUILD:
		text = xasprintf("the same build of %s (build-id %s)", was, before->build_id);
		break;
	case RELATION_SAME_PROGRAM:
		text = xasprintf("the same program %s (no build-id tells whether it was relinked)", was);
		break;
	case RELATION_RELINKED_IN_PLACE:
		text = xasprintf("%s relinked in place (build-id %s, then %s)", was, before->build_id, after->build_id);
		break;
	case RELATION_RELINKED_ELSEWHERE:
		text = xasprintf("%s relinked as %s, of the same name (build-id %s, then %s)", was, now,
				 before->build_id, after->build_id);
		break;
	case RELATION_RELINKED_RENAMED:
		text = xasprintf("%s relinked as %s, as given (build-id %s, then %s)", was, now, before->build_id,
				 after->build_id);
		break;
	case RELATION_UNRELATED:
		text = xasprintf("two programs, %s and %s", was, now);
		break;
	}
	free(was);
	free(now);
	return text;
}

char *relation_refusal(const struct trace_object *before, const struct trace_object *after, const char *option)
{
	char *was = trace_quote(before->path), *now = trace_quote(after->path);
	char *text = xasprintf("two programs: before's main program is %s (build-id %s), after's %s (build-id %s), "
			       "neither the same path nor the same name: give traces of one program before and after "
			       "its relink, or %s when after's is before's relinked under another name",
			       was, before->build_id, now, after->build_id, option);

	free(was);
	free(now);
	return text;
}
