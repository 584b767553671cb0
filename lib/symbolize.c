#include "symbolize.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct symbolizer {
	struct strmap images;     /* path -> struct image, or a failure message */
};

struct symbolizer *symbolizer_new(void)
{
	return xcalloc(1, sizeof(struct symbolizer));
}

struct image *symbolizer_image(struct symbolizer *s, const char *path, const char *build_id, char **why)
{
	void **slot = strmap_slot(&s->images, path);
	struct image *image;
	void *map;
	size_t size;
	char id[129];

	*why = NULL;
	if (*slot)
		image = *slot;
	else {
		image = xcalloc(1, sizeof(*image));
		image->path = xstrdup(path);
		*slot = image;
		/* The key must outlive the caller's string. */
		*strmap_slot(&s->images, image->path) = image;
		if (map_file(path, &map, &size, why) < 0 ||
		    elfobj_open_linked(&image->elf, image->path, map, size, why) < 0) {
			image->failure = *why;
			*why = xstrdup(image->failure);
			return NULL;
		}
	}
	if (image->failure) {
		*why = xstrdup(image->failure);
		return NULL;
	}
	if (build_id && strcmp(build_id, "none") != 0) {
		if (!elfobj_build_id(&image->elf, id, sizeof(id)))
			strcpy(id, "none");
		if (strcmp(id, build_id) != 0) {
			*why = xasprintf("build-id %s in the trace, %s in the file: the file is not the one that ran",
					 build_id, id);
			return NULL;
		}
	}
	return image;
}

const char *image_section_of(const struct image *image, const struct elf_symbol *sym)
{
	if (sym->shndx > 0 && sym->shndx < image->elf.section_count)
		return image->elf.sections[sym->shndx].name;
	return "?";
}
