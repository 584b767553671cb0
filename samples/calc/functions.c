#include <math.h>
#include <string.h>
#include "calc.h"

double calc_eval_function(const char *name, double x)
{
	if (!strcmp(name, "sqrt"))
		return sqrt(x);
	if (!strcmp(name, "sin"))
		return sin(x);
	if (!strcmp(name, "cos"))
		return cos(x);
	return x;
}
