/* fuzz-archive: lib/archive.c on ar archives from memory, regular and
   thin, with every member that is ELF opened as deporder opens it.
   Seeds: small system archives and archives made of real objects. */
#include "harness.h"
#include "archive.h"
#include "elfobj.h"
#include "util.h"

#include <stdlib.h>

/* Members opened as ELF, at most: an archive of many members is mostly a
   test of the member walk, which sees them all anyway. */
enum { OPENED = 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *image, *why = NULL;
	struct archive *ar;
	size_t i, opened = 0;

	progname = "fuzz-archive";
	if (!archive_is(data, size))
		return -1;
	image = harness_copy(data, size);
	ar = archive_parse("fuzz/input.a", (const unsigned char *)image, size, &why);
	if (!ar) {
		harness_check(why != NULL, "a failed parse says why");
		free(why);
		free(image);
		return 0;
	}
	for (i = 0; i < ar->symbol_count; i++)
		harness_check(ar->symbols[i].member < ar->member_count, "an index symbol names a member");
	for (i = 0; i < ar->member_count; i++) {
		const struct archive_member *m = &ar->members[i];
		char *path = archive_member_path(ar, m);

		free(path);
		if (ar->thin) {
			harness_check(m->data == NULL, "a thin archive holds no member data");
			continue;
		}
		harness_check(m->data >= (const unsigned char *)image && m->data + m->size <= (const unsigned char *)image + size,
			      "a member lies inside the archive");
		if (opened < OPENED && elfobj_is_elf(m->data, m->size)) {
			struct elf_object obj;
			char *copy = harness_copy(m->data, m->size);

			opened++;
			why = NULL;
			if (elfobj_open(&obj, m->name, copy, m->size, &why) == 0) {
				if (elfobj_load_relocs(&obj, &why) < 0)
					free(why);
				elfobj_close(&obj);
			} else {
				free(why);
			}
			free(copy);
		}
	}
	archive_free(ar);
	free(image);
	return 0;
}
