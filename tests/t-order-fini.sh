#!/bin/bash
# deporder --emit=gnu-ld puts .fini (what the program runs at exit) at
# the end of the traced range and linkopt-prefetch.o's start-up code on a
# page before it: every code page the relinked program's run touches lies
# at or before the end of the hot range.  GNU ld's default script puts .fini after all the cold
# code, where it cost a page of its own on every ordered link.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein

startup_project
link=(gcc -o prog main.o libwork.a)
"${link[@]/#prog/prog.default}" -Wl,-Map=prog.map || fail "the default link"
"$PAGEIN" --granularity=function --output="$PWD/default.trace" -- ./prog.default > want.out 2> pagein.err ||
	fail "pagein: $(head -3 pagein.err)"
deporder_ok order.ld order.err -q --granularity=section --trace default.trace --map prog.map --emit=gnu-ld \
	--cc -- "${link[@]}"
"${link[@]}" "$TOP/prefetch/linkopt-prefetch.o" -Wl,-T,order.ld || fail "the ordered link"
"$PAGEIN" --granularity=function --output="$PWD/after.trace" -- ./prog > got.out 2> pagein.err ||
	fail "pagein on the ordered program: $(head -3 pagein.err)"
expect_same want.out got.out "the ordered program's output"

address() { nm prog | awk -v s="$1" '$3 == s { print "0x" $1; exit }'; }
start=$(address __linkopt_hot_start) end=$(address __linkopt_hot_end)
prefetch_apart prog
for sym in _fini; do
	a=$(address $sym)
	[[ -n $a ]] || fail "nm finds no $sym in prog"
	((a >= start && a < end)) || fail "$sym at $a is outside the hot range $start-$end"
done
last=$(( end & ~0xfff ))
relative after.trace "$PWD/prog" C > pages.txt
[[ -s pages.txt ]] || fail "the trace has no code page of prog"
while read -r page sym; do
	((page <= last)) || fail "the run touched page $page ($sym), past the hot range's last page $(printf 0x%x $last)"
done < pages.txt
exit 0
