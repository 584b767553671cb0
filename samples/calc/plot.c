#include <stdio.h>
#include "calc.h"

/* Not used by calc itself either. */
void calc_plot(const double *v, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < (int)v[i]; k++)
			putchar('#');
		putchar('\n');
	}
}
