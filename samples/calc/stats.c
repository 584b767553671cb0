#include "calc.h"

/* Not used by calc itself: an archive member the link never pulls. */
double calc_stats_mean(const double *v, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0;
}

double calc_stats_variance(const double *v, int n)
{
	double m = calc_stats_mean(v, n), s = 0;
	for (int i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return n ? s / n : 0;
}
