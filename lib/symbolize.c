#include "symbolize.h"
#include "util.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

struct symbolizer {
	struct strmap images;     /* path -> struct image, or a failure message */
};

struct symbolizer *symbolizer_new(void)
{
	return xcalloc(1, sizeof(struct symbolizer));
}

static const struct elf_object *sort_object;

static int by_address(const void *a, const void *b)
{
	const struct elf_symbol *x = &sort_object->symbols[*(const uint32_t *)a];
	const struct elf_symbol *y = &sort_object->symbols[*(const uint32_t *)b];

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* Among aliases, a global name first: it is the one orders use. */
	if ((x->bind == STB_LOCAL) != (y->bind == STB_LOCAL))
		return x->bind == STB_LOCAL ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

struct image *symbolizer_image(struct symbolizer *s, const char *path, const char *build_id, char **why)
{
	void **slot = strmap_slot(&s->images, path);
	struct image *image;
	void *map;
	size_t size, i;
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
		image->functions = xcalloc(image->elf.symbol_count ? image->elf.symbol_count : 1, sizeof(uint32_t));
		for (i = 0; i < image->elf.symbol_count; i++) {
			const struct elf_symbol *sym = &image->elf.symbols[i];

			if ((sym->type == STT_FUNC || sym->type == STT_GNU_IFUNC) && sym->shndx != SHN_UNDEF &&
			    sym->shndx < SHN_LORESERVE)
				image->functions[image->function_count++] = i;
		}
		sort_object = &image->elf;
		qsort(image->functions, image->function_count, sizeof(uint32_t), by_address);
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

/* Index in functions of the last symbol at or below vaddr, or -1. */
static long last_at_or_below(const struct image *image, uint64_t vaddr)
{
	long lo = 0, hi = (long)image->function_count - 1, found = -1;

	while (lo <= hi) {
		long mid = (lo + hi) / 2;

		if (image->elf.symbols[image->functions[mid]].value <= vaddr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

const struct elf_symbol *image_function_at(const struct image *image, uint64_t vaddr)
{
	long k = last_at_or_below(image, vaddr);

	/* Step back over aliases to the first, preferred one. */
	while (k > 0 && image->elf.symbols[image->functions[k - 1]].value == vaddr)
		k--;
	if (k < 0 || image->elf.symbols[image->functions[k]].value != vaddr)
		return NULL;
	return &image->elf.symbols[image->functions[k]];
}

const struct elf_symbol *image_function_containing(const struct image *image, uint64_t vaddr)
{
	long k = last_at_or_below(image, vaddr);

	for (; k >= 0; k--) {
		const struct elf_symbol *sym = &image->elf.symbols[image->functions[k]];

		if (vaddr < sym->value + (sym->size ? sym->size : 1))
			return sym;
		if (sym->value < vaddr && sym->size)
			break;
	}
	return NULL;
}

const char *image_section_of(const struct image *image, const struct elf_symbol *sym)
{
	if (sym->shndx > 0 && sym->shndx < image->elf.section_count)
		return image->elf.sections[sym->shndx].name;
	return "?";
}
