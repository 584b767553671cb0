#include <stdio.h>
#include "calc.h"

void calc_print(const struct value *v, int verbose)
{
	if (v->is_integer)
		printf(verbose ? "integer %ld\n" : "%ld\n", (long)v->number);
	else
		printf(verbose ? "real %g\n" : "%g\n", v->number);
}
