/* calc: a small calculator whose library has more modules than any one run
   needs; the sample for deporder and the ordering pipeline. */
#include <stdio.h>
#include <string.h>
#include "calc.h"

int main(int argc, char **argv)
{
	char line[256];
	int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;

	while (fgets(line, sizeof(line), stdin)) {
		struct value v;

		if (calc_parse(line, &v) < 0) {
			calc_report_error(line);
			continue;
		}
		calc_print(&v, verbose);
	}
	return 0;
}
