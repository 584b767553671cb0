#!/bin/bash
# linkopt-bolt's start-up order places every function the start-up ran
# before the steady state's: those pagein records the entry of in the
# order they were entered, _init (which pagein has no entry record of:
# valgrind does not know it) where the run first touched its page, and
# the crt functions the start-up ran at no time the trace tells
# (frame_dummy) first, not at the far end of the start-up code.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need llvm-bolt-16
LB=$TOP/linkopt-bolt/linkopt-bolt
[[ -x $LB ]] || fail "linkopt-bolt is not built"

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
int own_page(int);
__attribute__((noinline)) int first_fn(int x) { return x * 3; }
__attribute__((noinline)) int last_fn(int x) { return x + 5; }
__attribute__((noinline)) long steady_only(int n)
{
	long s = 0;
	int i;

	for (i = 0; i < n * 100; i++)
		s += (i * 7) ^ (s >> 3);
	return s;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	n = last_fn(own_page(first_fn(n)));
	printf("%d %ld\n", n, argc > 2 ? steady_only(n) : 0L);
	return 0;
}
EOF2
# a function on a page of its own: .text starts on a new page, so that
# _init, in .init, is the first code to run on its page
printf '__attribute__((noinline, aligned(4096))) int own_page(int x) { return x ^ 0x55; }\n' > page.c
gcc -O2 -g -Wl,--emit-relocs -o prog prog.c page.c || fail "cannot build prog"
"$PAGEIN" --granularity=function --branches=yes --output="$PWD/startup.trace" -- ./prog 3 > /dev/null 2> err ||
	fail "pagein: $(head -3 err)"
"$PAGEIN" --branches=yes --code=no --data=no --output="$PWD/steady.trace" -- ./prog 300 steady > /dev/null 2> err ||
	fail "pagein: $(head -3 err)"
# the premises: pagein has entry records of main and the functions it
# calls, none of _init or frame_dummy, and the first touch of _init's page
# is _init's own
entered=$(awk '$3 == "F" && index($0, "(in '"$PWD"'/prog)") { print $6 }' startup.trace | tr '\n' ' ')
[[ $entered == *"main first_fn own_page last_fn"* ]] || fail "pagein's entry records: $entered"
[[ $entered != *_init* && $entered != *frame_dummy* ]] ||
	fail "pagein now records the entry of _init or frame_dummy ($entered): the test no longer covers what it should"
init_page=$(page_of_symbol prog _init)
base=$(base_of startup.trace "$PWD/prog")
awk -v a="$(printf '0x%x' $((base + init_page)))" -v i="$(printf '0x%x' $((base + 0x$(nm prog | awk '$3 == "_init" { print $1 }'))))" \
	'$3 == "C" && $2 == a && $5 == i ":"' startup.trace | grep -q . ||
	fail "_init is not the first code to run on its page: $(grep ' C ' startup.trace | grep "$PWD/prog")"

"$LB" --startup startup.trace --profile steady.trace --dry-run --keep kept -o prog.bolt ./prog > out 2> err ||
	fail "linkopt-bolt: $(cat err)"
line() { grep -n -x -m1 "$1" kept/order.txt | cut -d: -f1; }
for f in frame_dummy _start _init main first_fn own_page last_fn steady_only; do
	[[ -n $(line $f) ]] || fail "$f is not in the order: $(tr '\n' ' ' < kept/order.txt)"
done
order=$(tr '\n' ' ' < kept/order.txt)
before() { # A B: A comes before B in the order
	(($(line "$1") < $(line "$2"))) || fail "$1 does not come before $2 in the order: $order"
}
before frame_dummy _start
before _start _init
before _init main
before main first_fn
before first_fn own_page
before own_page last_fn
before last_fn steady_only
expect_grep '^order: [0-9]+ start-up functions, then 1 the profile ran' out "the summary of the order"
exit 0
