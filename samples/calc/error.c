#include <stdio.h>
#include "calc.h"

void calc_report_error(const char *line)
{
	fprintf(stderr, "calc: syntax error: %s", line);
}
