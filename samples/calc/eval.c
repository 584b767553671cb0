#include "calc.h"

double calc_eval_binary(char op, double a, double b)
{
	switch (op) {
	case '+': return a + b;
	case '-': return a - b;
	case '*': return a * b;
	default: return b != 0 ? a / b : 0;
	}
}
