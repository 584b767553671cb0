#!/bin/bash
# linkopt-startup --placement=best --steady: every candidate scored is
# timed against plain in turns, a sample many runs of a short workload;
# one more than 3% slower in five turns is measured again, in fifteen,
# and refused when it is slower in more of them than chance makes (12 of
# 15): one sample in five far off on a shared machine once refused
# SQLite's best layout (1.214x; 1.052x in the next search), and a refusal
# judged against the range of fifteen plain samples let a layout 1.58x
# slower through on a loaded machine.  Here the steady workload spins
# when the program has DT_RELR, so every +relr layout is slower in
# truth, about twice: each is measured again and refused on its
# fifteen turns, and the search says so; one without relr is chosen.
# Then a steady workload that fails with relr: each +relr layout fails.
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
# the steady workload: about twice the CPU with relr (a shell loop of 3,000
# turns, about as long as the rest; 30,000 made it ten times, and this
# test took a quarter of make check's CPU), as a
# layout that is slower in truth
cat > steady.sh <<'EOF'
./prog s > /dev/null
if readelf -d ./prog | grep -q RELR; then
	i=0
	while [ $i -lt 3000 ]; do i=$((i + 1)); done
fi
EOF
# linkopt-startup in a tree without pfstat, as a user who is not root
# would run it: no cold start measured, whose loop judged every candidate
# it went through (each refusal said in the table then, and only then)
mkdir -p tree/bin tree/lib/linkopt
cp "$LINKOPT_STARTUP" tree/bin/linkopt-startup || fail "copy linkopt-startup"
ln -s "$TOP/pagein/pagein" "$TOP/deporder/deporder" tree/bin/ &&
	ln -s "$TOP/prefetch/linkopt-prefetch.o" "$TOP/prefetch/linkopt-cut.o" tree/lib/linkopt/ ||
	fail "the tree without pfstat"
run_ok search.out tree/bin/linkopt-startup --dir="$dir" --target=prog --placement=best --no-bolt --no-segments \
	--no-cut --no-cross --workload='./prog a' --steady='sh steady.sh' -- ./prog a
cat search.out
expect_grep '^linkopt-startup: no real cold start will be measured: pfstat not found$' search.out.err
expect_grep ', as the model predicts from the trace, none measured \(pfstat not found\);' search.out
# the steady workload is timed against plain, taking turns, for every
# candidate scored
grep -E '^[ *] (head|cold-start|data-first)' search.out | grep -vE ' [0-9]+\.[0-9]{3}x ' &&
	fail "a scored candidate without its steady ratio"
# one run takes milliseconds, less than the kernel's tick counts well: a
# sample is many runs of it
expect_grep 'the median of five turns \(a sample with plain, one with the layout; fifteen again above 1\.03x\), a sample [0-9]+ runs of the workload' \
	search.out
grep -E '^[ *] [a-z-]+\+relr ' search.out > relr.rows || fail "no +relr candidate in the table"
# each measured again and refused on its fifteen turns
for c in $(awk '{ print $1 == "*" ? $2 : $1 }' relr.rows); do
	expect_grep "^linkopt-startup: ${c//+/\\+}: [0-9.]+x plain in the steady state, slower in [0-9] of 5 turns: measured again\$" \
		search.out.err
	grep -F " $c " relr.rows | grep -qE 'slower than plain in the steady state in 1[2-5] of 15 turns, 12 enough to rule out chance: not chosen' ||
		fail "$c not refused on fifteen turns"
done
# and those without relr kept: one as fast as plain may be above 1.03x in
# five turns by chance, rarely slower in 12 of 15.  Rarely, not never: on
# this shared machine, beside other tests, head was once 1.032x in 12 of
# 15 turns and refused (2026-12-07).  A refusal only narrows the choice, the
# safe side; so one refused is noted, all of them refused fails
grep -E '^[ *] (head|cold-start|data-first) ' search.out > others || fail "no candidate without relr"
refused=$(grep -c 'slower than plain in the steady state' others)
(( refused < $(wc -l < others) )) || fail "every candidate without relr was refused as slower: $(cat others)"
(( refused == 0 )) ||
	note "$refused candidate(s) without relr refused as slower (load beside this test?): $(grep 'slower than plain' others | awk '{ print $1 == "*" ? $2 : $1 }' | tr '\n' ' ')"
chosen=$(sed -n 's/^chosen: \([^:(]*\)[:(].*/\1/p' search.out)
[[ -n $chosen && $chosen != *relr* ]] || fail "the search chose '$chosen'"
run_ok got.out ./prog a
expect_same want.out got.out "the chosen layout's output"

# a steady workload that fails with relr: every +relr layout fails, is
# said to, and is not chosen (it was once shown without a ratio and kept
# among those that could be)
cat > fails.sh <<'EOF2'
./prog s > /dev/null
! readelf -d ./prog | grep -q RELR
EOF2
run_ok fails.out tree/bin/linkopt-startup --dir="$dir" --target=prog --placement=best --no-bolt --no-segments \
	--no-cut --no-cross --workload='./prog a' --steady='sh fails.sh' -- ./prog a
cat fails.out
grep -E '^[ *] [a-z-]+\+relr ' fails.out > relr.rows || fail "no +relr candidate in the second table"
grep -vF '(the steady workload failed, or took no CPU time, in a turn with it)' relr.rows &&
	fail "a +relr candidate not failed by its steady workload"
chosen=$(sed -n 's/^chosen: \([^:(]*\)[:(].*/\1/p' fails.out)
[[ -n $chosen && $chosen != *relr* ]] || fail "the search chose '$chosen' with the steady workload failing with relr"
