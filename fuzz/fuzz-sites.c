/* fuzz-sites: likely-check's data-file reader (likely-check/sites.c
   site_table_read), each input read twice into one table as report merges
   several files, then attached to its macros and written out again.
   Seeds: data files of a counting run and of profile mode. */
#include "harness.h"
#include "likely-check/sites.h"

#include <stdio.h>
#include <stdlib.h>

static FILE *sink;

/* likely-check frees its table at exit; the harness frees what sites.c
   allocated into it. */
static void free_table(struct site_table *table)
{
	size_t i;

	for (i = 0; i < table->count; i++) {
		struct site *s = table->sites[i];

		free(s->file);
		free(s->function);
		free(s->expression);
		free(s->reason);
		free(s);
	}
	free(table->sites);
	for (i = 0; i < table->by_key.capacity; i++)
		free((char *)table->by_key.slots[i].key);
	strmap_free(&table->by_key);
	for (i = 0; i < table->macro_count; i++)
		free(table->macros[i].file);
	free(table->macros);
	for (i = 0; i < table->macro_at.capacity; i++) {
		free((char *)table->macro_at.slots[i].key);
		free(table->macro_at.slots[i].value);
	}
	strmap_free(&table->macro_at);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = harness_file("likely-check.1", data, size);
	struct site_table table = { 0 };
	int first, second;

	progname = "fuzz-sites";
	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	first = site_table_read(&table, path);
	second = site_table_read(&table, path);
	harness_check(first == second, "a file reads the same twice");
	harness_check(table.files_read == (first == 0 ? 2u : 0u), "each file read counts once");
	site_table_attach_macros(&table);
	site_table_write(&table, sink);
	free_table(&table);
	return 0;
}
