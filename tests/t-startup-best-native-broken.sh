#!/bin/bash
# linkopt-startup --placement=best: a layout that breaks the program
# natively and not under valgrind is never chosen.  BOLT 16's rewrite of
# Python computed garbage natively (an OverflowError in a held-out
# workload) while its pagein traces were right, and the search only
# dropped its native model for every candidate.  Here a program fails
# natively when a layout moved its long-double probe after its other
# functions (valgrind's long double is a double: the probe says no there,
# and every trace is clean); the plain link keeps it first.  Every
# reordered candidate is refused, naming the workload, and the plain link
# stays in place (exit status 1: no layout could be made).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
need_faults_recordable
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

cat > main.c <<'C'
#include <stdint.h>
#include <stdio.h>
int f0(int), f1(int), f2(int), f3(int);
/* natively (x87's 64-bit mantissa) true; under valgrind (53 bits) false */
__attribute__((noinline)) int high_precision(void)
{
	volatile long double x = 1;

	x += 1e-17L;
	return x != 1;
}

int main(int argc, char **argv)
{
	long s = f0(argc) + f1(argc) + f2(argc) + f3(argc);

	(void)argv;
	/* the plain link puts main.c's functions before work.c's */
	if (high_precision() && (uintptr_t)high_precision > (uintptr_t)f3) {
		fprintf(stderr, "broken layout\n");
		return 1;
	}
	printf("%ld\n", s);
	return 0;
}
C
for i in 0 1 2 3; do printf '__attribute__((noinline)) int f%d(int x) { return x * %d + 1; }\n' $i $((i + 2)); done > work.c
"${cc[@]}" -O2 -c main.c work.c || fail "compile"
"${cc[@]}" -o prog main.o work.o || fail "link"
run_ok want.out ./prog a

# every candidate refused: the table, then exit status 1 with the plain
# link back in place
expect_exit 1 best.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-bolt --no-segments \
	--workload='./prog a b' -- ./prog a
expect_grep 'no candidate could be made and checked: the plain links are back in place' best.out.err "the refusal"
expect_grep "^\\(model: the pagein traces, then the pages a native run" best.out "the plain link's native runs"
rows=$(grep -E '^[ *] (head|cold-start|data-first)' best.out)
[[ -n $rows ]] || fail "no candidate row: $(cat best.out)"
while read -r row; do
	[[ $row == *"fails natively with it, not with the plain link"* ]] ||
		fail "a candidate that breaks the program natively was not refused: $row"
done <<< "$rows"
expect_grep '^chosen: the plain link' best.out "the choice"
run_ok got.out ./prog a
expect_same want.out got.out "the program in place"
