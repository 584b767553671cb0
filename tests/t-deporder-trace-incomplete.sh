#!/bin/bash
# deporder warns about a trace that is incomplete (no "# end": its run was
# killed), as pagein-report and linkopt report do: the order and
# --evaluate's pages cover only part of the run (it said nothing).  A
# complete trace gives no such warning.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

printf 'int f(void) { return 1; }\nint main(void) { return f() - 1; }\n' > m.c
cc_obj m.o m.c -ffunction-sections
gcc -o m m.o -Wl,-Map=m.map || fail "cannot link m"
"$PAGEIN" --granularity=function --out-file="$PWD/m.trace" -- ./m > /dev/null 2> pagein.err ||
	fail "pagein: $(head -3 pagein.err)"
grep -v '^# end$' m.trace > cut.trace
cmp -s m.trace cut.trace && fail "the trace has no '# end' line to cut"

for args in "" "--granularity=section --evaluate"; do
	# shellcheck disable=SC2086
	deporder_ok got.out got.err -q $args --trace cut.trace --map m.map --cc -- gcc -o m m.o
	expect_grep "^deporder: warning: cut\\.trace: the trace is incomplete \\(no '# end' line\\): its figures cover only part of the run$" \
		got.err "deporder $args on a trace cut short"
	[[ -s got.out ]] || fail "deporder $args on a trace cut short printed nothing"
	# shellcheck disable=SC2086
	deporder_ok got.out got.err -q $args --trace m.trace --map m.map --cc -- gcc -o m m.o
	expect_no_grep "the trace is incomplete" got.err "deporder $args on a complete trace"
done
exit 0
