#ifndef CALC_H
#define CALC_H
struct value { double number; int is_integer; };
/* Parses and evaluates one line; 0, or -1 on a syntax error. */
int calc_parse(const char *line, struct value *out);
double calc_eval_binary(char op, double a, double b);
double calc_eval_function(const char *name, double x);
void calc_print(const struct value *v, int verbose);
void calc_report_error(const char *line);
const char *calc_skip_space(const char *p);
double calc_stats_mean(const double *v, int n);
double calc_stats_variance(const double *v, int n);
void calc_plot(const double *v, int n);
#endif
