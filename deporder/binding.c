#define _GNU_SOURCE
#include "binding.h"
#include "output.h"

#include <elf.h>
#include <fnmatch.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The binary the map names: OUTPUT's path as the link gave it, which is
   relative to where the link ran: here, or the map's folder.  The maps of
   gold, lld and mold name no output: the link's -o stands for it. */
static char *binary_of_map(const struct ldmap *map, const char *map_path, const struct link *link)
{
	const char *name = map->output_count ? map->outputs[0] : link->options->output;
	char *copy, *candidate;

	if (!name)
		return NULL;
	if (name[0] == '/' || access(name, F_OK) == 0)
		return xstrdup(name);
	copy = xstrdup(map_path);
	candidate = xasprintf("%s/%s", dirname(copy), name);
	free(copy);
	if (access(candidate, F_OK) == 0)
		return candidate;
	free(candidate);
	return NULL;
}

/* Where the binary's thread-local storage template starts (its PT_TLS
   segment's address), which its STT_TLS symbols are offsets from; false,
   with *why set (newly allocated) when the program headers cannot be
   read; *base 0 without one. */
static bool tls_base(const struct elf_object *binary, uint64_t *base, char **why)
{
	uint64_t table_offset, table_size;
	size_t count, i;
	struct elf_segment *segments = elfobj_segments(binary, &count, &table_offset, &table_size, why);

	*base = 0;
	if (*why)
		return false;
	for (i = 0; i < count; i++)
		if (segments[i].type == PT_TLS)
			*base = segments[i].address;
	free(segments);
	return true;
}

/* The address the map gives symbol s of the binary: its value, or for a
   thread-local one (an offset in the TLS template), that plus the
   template's address. */
static uint64_t map_address(const struct elf_symbol *s, uint64_t tls)
{
	return s->type == STT_TLS ? tls + s->value : s->value;
}

/* Whether the map puts s where the binary has it: lld writes a
   thread-local symbol's offset in the template, as the binary does. */
static bool where_the_map_says(const struct elf_symbol *s, uint64_t tls, uint64_t listed)
{
	return map_address(s, tls) == listed || (s->type == STT_TLS && s->value == listed);
}

/* The map's symbols against the binary's: 0 when every one the binary has
   sits where the map says; EXIT_INPUT after naming those that do not. */
static int check_map(const struct ldmap *map, const struct elf_object *binary, const char *map_path)
{
	size_t i, compared = 0, moved = 0;
	char *examples = xstrdup(""), *why;
	uint64_t tls;

	if (!tls_base(binary, &tls, &why)) {
		error("%s: %s", binary->name, why);
		free(why);
		free(examples);
		return EXIT_INPUT;
	}
	for (i = 0; i < map->symbol_count; i++) {
		const struct ldmap_symbol *m = &map->symbols[i];
		uint32_t k = elfobj_symbol_by_name(binary, m->name), first = 0;
		bool same = false;

		for (; k; k = elfobj_symbol_next_named(binary, k)) {
			if (binary->symbols[k].shndx == 0)
				continue;
			if (!first)
				first = k;
			same |= where_the_map_says(&binary->symbols[k], tls, m->address);
		}
		if (!first)
			continue;
		compared++;
		if (same)
			continue;
		if (moved++ < 3) {
			char *more = xasprintf("%s%s'%s' at 0x%llx in the map, 0x%llx in the binary", examples,
					       moved > 1 ? "; " : "", m->name, (unsigned long long)m->address,
					       (unsigned long long)map_address(&binary->symbols[first], tls));

			free(examples);
			examples = more;
		}
	}
	if (!compared) {
		error("%s: cannot check that the map describes %s: the binary has none of the map's symbols "
		      "(stripped?); give the unstripped binary with --binary", map_path, binary->name);
		free(examples);
		return EXIT_INPUT;
	}
	if (moved) {
		error("%s: does not describe %s: %zu of %zu symbols are elsewhere (%s): the binary was relinked "
		      "since the map was written (an ordered relink?); trace the binary the map describes, or give "
		      "its map", map_path, binary->name, moved, compared, examples);
		free(examples);
		return EXIT_INPUT;
	}
	free(examples);
	return 0;
}

/* Sets run->object to the traced object whose build-id is build_id (and
   whose path matches glob); EXIT_INPUT after listing what the trace holds. */
static int pick_object(struct traced_run *run, const char *binary, const char *build_id, const char *glob,
		       const char *hint)
{
	char *held = xstrdup("");
	size_t i;

	run->object = NULL;
	for (i = 0; i < run->trace.object_count; i++) {
		const struct trace_object *o = &run->trace.objects[i];

		if (!strcmp(o->build_id, build_id) && (!glob || !fnmatch(glob, o->path, 0))) {
			run->object = o;
			free(held);
			return 0;
		}
	}
	for (i = 0; i < run->trace.object_count && i < 8; i++) {
		char *path = trace_quote(run->trace.objects[i].path);
		char *more = xasprintf("%s%s%s (build-id %s)", held, i ? ", " : "", path, run->trace.objects[i].build_id);

		free(path);
		free(held);
		held = more;
	}
	error("%s: no traced object is %s (build-id %s)%s%s: it holds %s%s: %s", run->path, binary, build_id,
	      glob ? " matching " : "", glob ? glob : "", held, run->trace.object_count > 8 ? ", ..." : "",
	      hint ? hint : "a trace of another program, or of the binary before or after a relink; trace the binary "
			    "the map describes");
	free(held);
	return EXIT_INPUT;
}

/* The map of a program given for a -shared link, or the other way round
   (one -Map for a whole build leaves the last link's map). */
static int check_kind(const struct elf_object *binary, const struct link *link, const char *map_path)
{
	bool program = elfobj_section_by_name(binary, ".interp") != 0;

	if (link->options->shared && program) {
		error("%s: is the map of the program %s, but the link is -shared: give the library link's own -Map",
		      map_path, binary->name);
		return EXIT_INPUT;
	}
	/* a library: no interpreter, and a soname or no entry point (a
	   static PIE has an entry point and no interpreter) */
	if (!link->options->shared && !program && binary->type == ET_DYN && (binary->soname || !binary->entry)) {
		error("%s: is the map of the shared library %s, but the link makes a program: give the program "
		      "link's own -Map", map_path, binary->name);
		return EXIT_INPUT;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* When the map's output is not the file the link writes: a hint that the
   map is another link's; NULL otherwise (a new string). */
static char *map_of_another_link(const struct ldmap *map, const struct link *link)
{
	const char *writes = link->options->output;

	if (!writes || !map->output_count || !strcmp(base_name(writes), base_name(map->outputs[0])))
		return NULL;
	return xasprintf("the map is of '%s' while the link writes '%s': the map may be another link's (a -Map "
			 "flag given to every link of a build leaves the last link's map); give this link its own "
			 "map, or trace the binary the map describes", map->outputs[0], writes);
}

int binding_check(struct hot_inputs *in, const struct link *link, const char *map_path, const char *binary_path,
		  const char *object_glob)
{
	char *path = binary_path ? xstrdup(binary_path) : binary_of_map(&in->map.map, map_path, link), *why;
	char build_id[129];
	struct elf_object binary;
	void *data;
	size_t size, t;
	int status = 0;

	if (!path && !in->map.map.output_count) {
		error("%s: a map of %s names no output, and the link's output (-o) %s%s%s: give the traced binary "
		      "with --binary", map_path, ldmap_format_name(in->map.map.format),
		      link->options->output ? "'" : "is not given", link->options->output ? link->options->output : "",
		      link->options->output ? "' is not here nor beside the map" : "");
		return EXIT_INPUT;
	}
	if (!path) {
		error("%s: the map's output '%s' is not here nor beside the map: give the traced binary with --binary",
		      map_path, in->map.map.outputs[0]);
		return EXIT_INPUT;
	}
	if (map_file(path, &data, &size, &why) < 0 || elfobj_open_linked(&binary, path, data, size, &why) < 0) {
		error("%s: %s", path, why);
		free(why);
		free(path);
		return EXIT_INPUT;
	}
	/* read like the map and the traces: --out must not replace it */
	output_input(path);
	if (!elfobj_build_id(&binary, build_id, sizeof(build_id))) {
		error("%s: has no build-id, so no trace can be proven to be of it: link it with -Wl,--build-id", path);
		status = EXIT_INPUT;
	} else {
		char *hint = map_of_another_link(&in->map.map, link);

		status = check_kind(&binary, link, map_path);
		if (!status)
			status = check_map(&in->map.map, &binary, map_path);
		for (t = 0; t < in->count && !status; t++)
			if (pick_object(&in->runs[t], path, build_id, object_glob, hint))
				status = EXIT_INPUT;
		free(hint);
	}
	elfobj_close(&binary);
	if (!status)
		in->binary_path = path;
	else
		free(path);
	return status;
}
