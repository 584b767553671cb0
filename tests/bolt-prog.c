/* The program of the BOLT tests: hot runs N times, its call of cold_path
   never (x never reaches 123456), one branch of it a third of the time;
   setup runs once at start-up, before the loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
volatile int sink;
__attribute__((noinline)) void cold_path(int x) { sink += x * 7; printf("cold %d\n", x); }
__attribute__((noinline)) int hot(int x)
{
	if (__builtin_expect(x == 123456, 0))
		cold_path(x);
	if (x % 3 == 0)
		sink++;
	return (x * 2654435761u) >> 7;
}
__attribute__((noinline)) int setup(const char *s) { return (int)strlen(s); }
int main(int argc, char **argv)
{
	long s = setup(argv[0]) * 0;
	int i, n = argc > 1 ? atoi(argv[1]) : 1000;

	for (i = 0; i < n; i++)
		s += hot(i) & 0xff;
	printf("%ld\n", s);
	return 0;
}
