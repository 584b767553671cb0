#include "ordering.h"
#include "util.h"

#include <stdlib.h>

struct ordering_entry *ordering_add(struct ordering *order, const char *unit, const char *file,
				    const char *section)
{
	struct ordering_entry *e = ARRAY_PUSH(order->entries, order->count, order->capacity);

	*e = (struct ordering_entry){ .unit = xstrdup(unit), .file = xstrdup(file),
				      .section = section ? xstrdup(section) : NULL };
	return e;
}

void ordering_add_symbol(struct ordering_entry *entry, const char *name)
{
	*ARRAY_PUSH(entry->symbols, entry->symbol_count, entry->symbol_capacity) = xstrdup(name);
}

void ordering_add_shared_name(struct ordering *order, const char *name)
{
	*ARRAY_PUSH(order->shared_names, order->shared_name_count, order->shared_name_capacity) = xstrdup(name);
}

void ordering_free(struct ordering *order)
{
	size_t i, k;

	if (!order)
		return;
	for (i = 0; i < order->count; i++) {
		struct ordering_entry *e = &order->entries[i];

		for (k = 0; k < e->symbol_count; k++)
			free(e->symbols[k]);
		free(e->symbols);
		free(e->unit);
		free(e->file);
		free(e->section);
	}
	free(order->entries);
	for (i = 0; i < order->edge_count; i++) {
		free(order->edges[i].caller);
		free(order->edges[i].callee);
	}
	free(order->edges);
	for (i = 0; i < order->shared_name_count; i++)
		free(order->shared_names[i]);
	free(order->shared_names);
	free(order->provenance);
	free(order);
}
