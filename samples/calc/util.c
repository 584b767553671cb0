#include <ctype.h>
#include "calc.h"

const char *calc_skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}
