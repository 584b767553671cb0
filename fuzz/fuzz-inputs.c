/* fuzz-inputs: deporder's input reader (deporder/inputs.c) on one file,
   read twice: as a response file (@FILE, its arguments parsed as ld's) and
   as a link input (FILE opened as ld opens it: an object, an archive, or
   an implicit linker script whose INPUT, GROUP and AS_NEEDED are opened in
   turn).  Each input is read in the process's temporary folder, where it
   is named "input", so that a script or response file naming "input"
   includes itself.  Seeds: Debian's implicit linker scripts, response
   files of a real link, objects and archives. */
#include "harness.h"
#include "deporder/linkmodel.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static struct link_options *parse(const char *arg)
{
	char *argv[] = { (char *)arg, NULL };

	return inputs_parse(argv, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int home = -1;
	struct link_options *opt;

	progname = "fuzz-inputs";
	inputs_quiet = true;
	harness_file("input", data, size);
	/* libFuzzer writes the corpus by relative paths: back home after. */
	if (home < 0 && (home = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		abort();
	if (chdir(harness_folder()) < 0)
		abort();
	inputs_free(parse("@input"));
	if ((opt = parse("input")))
		inputs_open(opt, true);
	inputs_free(opt);
	if (fchdir(home) < 0)
		abort();
	return 0;
}
