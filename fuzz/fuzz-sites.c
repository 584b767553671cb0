/* fuzz-sites: likely-check's data-file reader (likely-check/sites.c
   site_table_read), each input read from two files into one table as
   report merges several files (a third read of the first file refused: it
   was read), then attached to its macros and written out again.
   Seeds: data files of a counting run and of profile mode. */
#include "harness.h"
#include "likely-check/sites.h"

#include <stdio.h>
#include <stdlib.h>

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = harness_file("likely-check.1", data, size);
	const char *copy = harness_file("likely-check.2", data, size);
	struct site_table table = { 0 };
	int first, second, again;

	progname = "fuzz-sites";
	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	first = site_table_read(&table, path);
	second = site_table_read(&table, copy);
	again = site_table_read(&table, path);
	harness_check(first == second, "a file reads the same twice");
	harness_check(again == -1, "a file read before is refused");
	harness_check(table.files_read == (first == 0 ? 2u : 0u), "each file read counts once");
	site_table_attach_macros(&table);
	site_table_write(&table, sink);
	site_table_free(&table);
	return 0;
}
