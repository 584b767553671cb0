/* fuzz-inputs: deporder's input reader (deporder/inputs.c) on one file,
   read twice: as a response file (@FILE, its arguments parsed as ld's) and
   as a link input (FILE opened as ld opens it: an object, an archive, or
   an implicit linker script whose INPUT, GROUP and AS_NEEDED are opened in
   turn).  Each input is read in the process's temporary folder, where it
   is named "input", so that a script or response file naming "input"
   includes itself.  Seeds: Debian's implicit linker scripts, response files of a
   real link, objects and archives. */
#include "harness.h"
#include "linkmodel.h"

#include <fcntl.h>
#include <sanitizer/lsan_interface.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void free_input(struct input *in)
{
	size_t i;

	for (i = 0; i < in->child_count; i++)
		free_input(in->children[i]);
	free(in->children);
	if (in->unit) {
		elfobj_close(&in->unit->elf);
		free(in->unit->name);
		free(in->unit);
	}
	if (in->archive) {
		for (i = 0; i < in->archive->member_count; i++)
			harness_check(in->members[i] == NULL, "opening loads no member");
		archive_free(in->archive);
	}
	free(in->members);
	if (in->map)
		munmap(in->map, in->map_size);
	free(in->path);
	free(in->library);
	free(in);
}

static void free_options(struct link_options *opt)
{
	size_t i;

	free_input(opt->root);
	for (i = 0; i < opt->undefined_count; i++)
		free(opt->undefined[i]);
	free(opt->undefined);
	for (i = 0; i < opt->lib_dir_count; i++)
		free(opt->lib_dirs[i]);
	free(opt->lib_dirs);
	free(opt->entry);
	free(opt);
}

/* deporder keeps its input tree for its whole run and ends after a usage
   error without freeing it, so what parsing allocates is not leak-checked
   (the tree is freed below when there is one); opening is. */
static struct link_options *parse(const char *arg)
{
	char *argv[] = { (char *)arg, NULL };
	struct link_options *opt;

	__lsan_disable();
	opt = inputs_parse(argv, 1);
	__lsan_enable();
	return opt;
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
	if ((opt = parse("@input")))
		free_options(opt);
	if ((opt = parse("input"))) {
		inputs_open(opt, true);
		free_options(opt);
	}
	if (fchdir(home) < 0)
		abort();
	return 0;
}
