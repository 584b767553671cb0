/* fuzz-ldmap: lib/ldmap.c on -Map files (GNU ld, gold, lld, mold), with its address lookups.
   Seeds: maps of real small links. */
#include "harness.h"
#include "ldmap.h"
#include "util.h"

#include <stdlib.h>

/* Sections whose lookups are checked, at most. */
enum { LOOKUPS = 256 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ldmap map;
	char *why;
	size_t i;

	progname = "fuzz-ldmap";
	if (ldmap_read(harness_file("input.map", data, size), &map, &why) < 0) {
		harness_check(why != NULL, "a failed read says why");
		harness_check(map.count == 0 && map.sections == NULL, "a failed read leaves no sections");
		free(why);
		return 0;
	}
	harness_check(why == NULL, "a read that worked says nothing");
	harness_check(map.format == LDMAP_GNU_LD ? map.output_count == 1 : map.output_count <= 1,
		      "a GNU ld map that was read names one output, the others at most one");
	for (i = 0; i < map.count; i++) {
		const struct ldmap_section *s = &map.sections[i];
		const struct ldmap_section *found;

		harness_check(s->size != 0, "no section of size 0 is kept");
		harness_check(i == 0 || map.sections[i - 1].address <= s->address, "sections are sorted by address");
		if (i >= LOOKUPS)
			continue;
		found = ldmap_find(&map, s->address);
		harness_check(!found || (s->address >= found->address && s->address - found->address < found->size),
			      "ldmap_find gives a section holding the address");
		harness_check(ldmap_index_from(&map, s->address) <= map.count, "ldmap_index_from stays in the map");
	}
	ldmap_find(&map, 0);
	ldmap_find(&map, UINT64_MAX);
	ldmap_index_from(&map, UINT64_MAX);
	ldmap_free(&map);
	return 0;
}
