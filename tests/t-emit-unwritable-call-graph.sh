#!/bin/bash
# lld's --call-graph-ordering-file splits each line at spaces: a traced
# function whose symbol holds a space ("sp ace", from an asm label) cannot
# be written there, and deporder --emit=lld-call-graph refuses, naming it,
# with exit status 1 and nothing on standard output.  The symbol ordering
# file takes the same name (lld reads a whole line as the name): lld
# orders "sp ace" by it.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need ld.lld

cat > m.c <<'EOF2'
#include <stdio.h>
__attribute__((noinline, section(".text.first"))) int first(int x) { return x + 1; }
int spacey(int x) __asm__("\"sp ace\"");
__attribute__((noinline, section(".text.spacey"))) int spacey(int x) { return x + 2; }
__attribute__((noinline, section(".text.last"))) int last(int x) { return x + 3; }
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", last(argc) + first(argc) + spacey(argc));
	return 0;
}
EOF2
cc_obj m.o m.c
gcc -o prog-default m.o -Wl,-Map=default.map || fail "the default link"
run_ok want.out ./prog-default
"$PAGEIN" --granularity=function --output="$PWD/default.trace" -- ./prog-default > /dev/null 2>&1 ||
	fail "pagein on the default link"
from_trace=(-q --granularity=section --trace default.trace --map default.map --cc -- gcc -o prog m.o)

DEP_ERR=graph.err
run_deporder graph.txt graph.err --emit=lld-call-graph "${from_trace[@]}"
expect_status 1 "deporder --emit=lld-call-graph"
expect_grep "^deporder: symbol \"sp ace\" of the traces' call graph cannot be written in lld's --call-graph-ordering-file: lld splits a line of its call-graph file at spaces$" \
	graph.err "deporder --emit=lld-call-graph's message"
expect_empty graph.txt "deporder --emit=lld-call-graph's standard output"

deporder_ok order.lld order.err --emit=lld "${from_trace[@]}"
expect_grep '^sp ace$' order.lld "the symbol ordering file"
gcc -fuse-ld=lld -o prog m.o -Wl,--symbol-ordering-file,order.lld || fail "the link with lld"
expect_output want.out got.out "the lld-ordered program's output" ./prog
# lld lays out the three in the file's order: last, first, "sp ace"
nm -n prog | awk '$3 == "first" || $3 == "last" || $3 == "sp" { print $3 }' > got.order
printf '%s\n' last first sp > want.order
expect_same want.order got.order "the order lld gave the traced functions"
exit 0
