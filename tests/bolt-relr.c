/* The program of the tests of what linkopt-bolt proves of BOLT's output
   (t-bolt-verify, t-bolt-relr, t-bolt-matrix).  Linked with -z
   pack-relative-relocs, the loader relocates its function pointers
   through DT_RELR: ops (four), the 1104 of many, which fill more than the
   4 KiB of .data.rel.ro before .dynamic (BOLT 22 writes them 4 KiB too
   far on, over .dynamic), the init and fini arrays.  With -DWITH_IFUNC,
   pick is an IFUNC (the loader runs its resolver at load time); counter
   is data no relocation touches. */
#include <stdio.h>
#include <stdlib.h>

#define F4 op_add, op_mul, op_sub, op_xor
#define F16 F4, F4, F4, F4
#define F64 F16, F16, F16, F16
#define F256 F64, F64, F64, F64
#define MANY 1104

volatile int sink;
int counter = 5;

__attribute__((noinline)) int op_add(int x) { return x + 1; }
__attribute__((noinline)) int op_mul(int x) { return x * 3; }
__attribute__((noinline)) int op_sub(int x) { return x - 7; }
__attribute__((noinline)) int op_xor(int x) { return x ^ 5; }
__attribute__((noinline)) void cold_path(int x)
{
	sink += x * 7;
	printf("cold %d\n", x);
}

int (*const ops[])(int) = { op_add, op_mul, op_sub, op_xor };
int (*const many[MANY])(int) = { F256, F256, F256, F256, F64, F16 };

static int pick_plain(int x) { return x + counter; }
#ifdef WITH_IFUNC
static int (*resolve_pick(void))(int) { return pick_plain; }
int pick(int x) __attribute__((ifunc("resolve_pick")));
#else
#define pick pick_plain
#endif

__attribute__((noinline)) int hot(int x)
{
	if (__builtin_expect(x == 123456, 0))
		cold_path(x);
	return ops[x & 3](x);
}

int main(int argc, char **argv)
{
	long s = 0;
	int i, n = argc > 1 ? atoi(argv[1]) : 1000;

	for (i = 0; i < n; i++)
		s += hot(i) & 0xff;
	s += many[n % MANY](n) + pick(n);
	printf("%ld\n", s);
	return 0;
}
