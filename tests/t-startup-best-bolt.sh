#!/bin/bash
# linkopt-startup --placement=best where BOLT wins: forty functions the
# start-up calls, each a switch of 120 cases of which the start-up takes
# one (gcc has no reason to move the others out, so GNU ld's best layout
# keeps every function whole: 44 code pages on the day it came, BOLT's 3).
# The BOLT candidate is chosen and kept as the rewrite of its ordered
# link; --verify (make startup-check) passes it, though its order was made
# from BOLT's input link (--emit-relocs), and refuses the ordered link
# put in its place, naming the lost rewrite; the build's next link through
# linkopt-cc is the rewrite again.  All that with pages alone ranking
# (--request-pages 0): BOLT's rewrite reads 41 pages in 7 read requests
# here, the plain link 73 in 5, and by default a request counts as a
# window of 32 pages.  By default the best BOLT layout is measured, though
# GNU ld's rank before it.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
command -v llvm-bolt-16 > /dev/null || command -v llvm-bolt-22 > /dev/null || skip "no llvm-bolt-16 or -22"
need_faults_recordable
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

{
	echo 'volatile int v;'
	for i in $(seq 0 39); do
		printf '__attribute__((noinline)) int g%d(int x)\n{\n\tswitch (x & 127) {\n' "$i"
		for j in $(seq 0 119); do
			printf '\tcase %d: v = v * %d + %d; v ^= v >> %d; return v + %d;\n' "$j" "$((j * 7 + i + 3))" \
				"$((j + i))" "$((j % 13 + 1))" "$j"
		done
		printf '\tdefault: return x;\n\t}\n}\n'
	done
} > work.c
{
	echo '#include <stdio.h>'
	for i in $(seq 0 39); do echo "int g$i(int);"; done
	echo 'int main(int argc, char **argv) { long s = 0; (void)argv;'
	for i in $(seq 0 39); do echo "s += g$i(argc);"; done
	echo 'printf("%ld\n", s); return 0; }'
} > main.c
"${cc[@]}" -O2 -ffunction-sections -fdata-sections -c work.c main.c || fail "compile"
"${cc[@]}" -o prog main.o work.o || fail "link"
run_ok want.out ./prog a

# a HOME of the test's own (t-startup-best-native says why)
mkdir home
export HOME=$PWD/home
run_ok best.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-relr --no-segments --no-cut \
	--no-cross --request-pages 0 --workload='./prog a b' -- ./prog a
cat best.out
chosen=$(sed -n 's/^chosen: \([^:]*\):.*/\1/p' best.out)
[[ $chosen == *+bolt-* ]] || fail "the search chose '$chosen', not a BOLT layout"
code=$(awk -v c="$chosen" '$1 == "*" && $2 == c { print $3 }' best.out)
plain=$(awk '$1 == "plain" { print $5 }' best.out)
[[ $code =~ ^[0-9.]+$ && $plain =~ ^[0-9.]+$ ]] || fail "no code pages of $chosen or of the plain link: $(cat best.out)"
awk -v a="$code" -v p="$plain" 'BEGIN { exit !(a + 10 < p) }' ||
	fail "the chosen $chosen touches $code code pages, the plain link $plain"
[[ -f $dir/prog.rewrite && -f $dir/prog.bolt && -f $dir/prog.ordered ]] ||
	fail "BOLT's rewrite is not kept: $(ls "$dir")"
cmp -s prog "$dir/prog.bolt" || fail "the file in place is not BOLT's rewrite kept"
run_ok got.out ./prog a
expect_same want.out got.out "the chosen layout's output"

run_ok verify.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --verify -- ./prog a
expect_grep '^prog: start-up code pages [0-9]*, [0-9]* when ordered, [0-9]* before: ok$' verify.out
cp "$dir/prog.ordered" prog || fail "cannot put the ordered link in place"
"$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --verify -- ./prog a > verify.out 2>&1 &&
	fail "--verify passes the ordered link in place of BOLT's rewrite: $(cat verify.out)"
expect_grep 'prog is its ordered link without the rewrite kept \(.*/prog\.bolt\)' verify.out
rm prog
"${cc[@]}" -o prog main.o work.o 2> relink.err || fail "relink through linkopt-cc: $(cat relink.err)"
cmp -s prog "$dir/prog.bolt" || fail "the build's next link is not BOLT's rewrite: $(cat relink.err)"
run_ok got2.out ./prog a
expect_same want.out got2.out "the relinked program's output"

# by default (each read request counted as 32 pages, --request-pages),
# GNU ld's layouts rank first here, BOLT's rewrite makes more requests: as root,
# the best BOLT layout is measured all the same (the judged order puts
# what was measured first, and a kind never measured could not be
# chosen; it was not measured once GNU ld's filled the three)
if ((EUID == 0)); then
	"$LINKOPT_STARTUP" --dir="$dir" --target=prog --undo -- true || fail "--undo"
	"${cc[@]}" -o prog main.o work.o || fail "link again through linkopt-cc"
	run_ok requests.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-relr --no-segments \
		--no-cut --no-cross --workload='./prog a b' -- ./prog a
	expect_grep 'each read request counted as 32 pages more' requests.out "the default ranking"
	awk '$1 == "plain" || /^[ *] [a-z]/ && !/^  layout/' requests.out | awk '{ if ($1 == "*") $1 = ""; $0 = $0; print $1, $5 }' > rows
	bolt_row=$(grep -m1 '+bolt-' rows) || fail "no BOLT row: $(cat requests.out)"
	[[ ${bolt_row#* } != - ]] || fail "the best BOLT layout was not measured: $bolt_row ($(cat requests.out))"
fi
exit 0
