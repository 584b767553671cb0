/* libhints.so: a DSO with its own hint site. */
#include "hints.h"

int dso_work(int n)
{
	int i, rare = 0;

	for (i = 0; i < n; i++)
		if (unlikely(i % 1000 == 999))
			rare++;
	return rare;
}
