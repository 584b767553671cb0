#include <ctype.h>
#include <stdlib.h>
#include "calc.h"

static double parse_expr(const char **p, int *err);

static double parse_atom(const char **p, int *err)
{
	char name[16];
	int n = 0;
	double v;

	*p = calc_skip_space(*p);
	if (**p == '(') {
		(*p)++;
		v = parse_expr(p, err);
		*p = calc_skip_space(*p);
		if (**p != ')')
			*err = 1;
		else
			(*p)++;
		return v;
	}
	if (isalpha((unsigned char)**p)) {
		while (isalpha((unsigned char)**p) && n < 15)
			name[n++] = *(*p)++;
		name[n] = '\0';
		return calc_eval_function(name, parse_atom(p, err));
	}
	v = strtod(*p, (char **)p);
	return v;
}

static double parse_term(const char **p, int *err)
{
	double v = parse_atom(p, err);

	for (;;) {
		*p = calc_skip_space(*p);
		if (**p != '*' && **p != '/')
			return v;
		char op = *(*p)++;
		v = calc_eval_binary(op, v, parse_atom(p, err));
	}
}

static double parse_expr(const char **p, int *err)
{
	double v = parse_term(p, err);

	for (;;) {
		*p = calc_skip_space(*p);
		if (**p != '+' && **p != '-')
			return v;
		char op = *(*p)++;
		v = calc_eval_binary(op, v, parse_term(p, err));
	}
}

int calc_parse(const char *line, struct value *out)
{
	int err = 0;
	const char *p = line;

	out->number = parse_expr(&p, &err);
	out->is_integer = out->number == (long)out->number;
	p = calc_skip_space(p);
	return err || (*p && *p != '\n') ? -1 : 0;
}
