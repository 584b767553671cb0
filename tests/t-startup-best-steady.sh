#!/bin/bash
# linkopt-startup --placement=best --steady: every candidate scored is
# timed against plain, a sample many runs of a short workload; one whose
# steady figures would refuse it (slower than plain by more than 3% and than the
# plain samples' spread) is measured again, with three times the samples,
# before it is refused: one sample in five far off on a shared machine
# once refused SQLite's best layout (1.214x against a spread of 20%; 1.052x
# in the next search).  Here the steady workload spins when the program
# has DT_RELR, so every +relr layout is slower in truth: each is measured
# again and refused, on its fifteen samples, and the search says so; the
# others are not measured again, and one of them is chosen.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_buildsys
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

startup_functions w 20 > work.c
# rare runs at every start, 600 KiB from the rest in the plain link: every
# layout reads less than plain
startup_far rare
cat > main.c <<'EOF'
#include <stdio.h>
int w3(int), w11(int), w19(int), rare(int);
int main(int argc, char **argv)
{
	printf("%d\n", w3(1) + w11(2) + w19(argc) + rare(argc));
	return 0;
}
EOF
gcc -O2 -ffunction-sections -fdata-sections -c main.c work.c || fail "compile"
"${cc[@]}" -o prog main.o work.o || fail "the link through linkopt-cc"
run_ok want.out ./prog a
# the steady workload: about three times the CPU with relr (a shell loop), as a
# layout that is slower in truth
cat > steady.sh <<'EOF'
./prog s > /dev/null
if readelf -d ./prog | grep -q RELR; then
	i=0
	while [ $i -lt 15000 ]; do i=$((i + 1)); done
fi
EOF
run_ok search.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-bolt --no-segments \
	--no-cut --no-cross --workload='./prog a' --steady='sh steady.sh' -- ./prog a
cat search.out
# the steady workload is timed against plain, taking turns, for every
# candidate scored
grep -E '^[ *] (head|cold-start|data-first)' search.out | grep -vE ' [0-9]+\.[0-9]{3}x ' &&
	fail "a scored candidate without its steady ratio"
# one run takes milliseconds, less than the kernel's tick counts well: a
# sample is many runs of it
expect_grep 'medians of five samples each taking turns \(fifteen again for a layout five would refuse\), a sample [0-9]+ runs of the workload' \
	search.out
grep -E '^[ *] [a-z-]+\+relr ' search.out > relr.rows || fail "no +relr candidate in the table"
# each measured again, and only they
for c in $(awk '{ print $1 == "*" ? $2 : $1 }' relr.rows); do
	expect_grep "^linkopt-startup: ${c//+/\\+}: [0-9.]+x plain in the steady state, beyond the spread of [0-9]+%: measured again\$" \
		search.out.err
done
grep 'measured again' search.out.err | grep -v '+relr:' && fail "a candidate without relr measured again"
expect_grep 'slower than plain in the steady state, beyond the plain link.s own spread of [0-9]+% \(15 samples of each\): not chosen' \
	relr.rows
chosen=$(sed -n 's/^chosen: \([^:(]*\)[:(].*/\1/p' search.out)
[[ -n $chosen && $chosen != *relr* ]] || fail "the search chose '$chosen'"
run_ok got.out ./prog a
expect_same want.out got.out "the chosen layout's output"
