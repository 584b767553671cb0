/* fuzz-store: pgo-run's store metadata reader (pgo-run/store.c
   store_meta_read), which reads FOLDER/meta.  Seeds: the meta files of
   real pgo-run stores. */
#include "harness.h"
#include "pgo-run/store.h"
#include "util.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store_meta meta;
	char *why = NULL;
	size_t i;

	progname = "fuzz-store";
	harness_file("meta", data, size);
	if (store_meta_read(harness_folder(), &meta, &why) < 0) {
		harness_check(why != NULL, "a failed read says why");
		free(why);
	} else {
		for (i = 0; i < meta.nworkloads; i++)
			harness_check(meta.workloads[i] != NULL, "every workload has its command");
		for (i = 0; i < meta.nobjects; i++)
			harness_check(meta.objects[i] != NULL, "every object has its name");
		for (i = 0; i < meta.nsources; i++)
			harness_check(meta.sources[i] != NULL, "every source has its path");
	}
	store_meta_free(&meta);
	return 0;
}
