#!/bin/bash
# A program whose start-up calls a library function in a loop runs a PLT
# stub at every call: linkopt-bolt's profile gave BOLT those runs and
# branches, in no function of the binary, and BOLT 16 counted each as a
# trace mismatching the code (6% of SQLite's shell, 40% here), over the 5%
# that says the profile is another build's: it refused the rewrite of the
# very binary traced.  Now the records outside every function are left
# out: BOLT 16 finds no mismatching trace, the rewrite is written and the
# program prints the same.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need llvm-bolt-16
LB=$TOP/linkopt-bolt/linkopt-bolt
[[ -x $LB ]] || fail "linkopt-bolt is not built"

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < 3000; i++)
		sum += strlen(argv[1 + i % (argc - 1)]) + (unsigned long)labs(i - 1500);
	printf("%lu\n", sum);
	return 0;
}
EOF2
gcc -O1 -g -Wl,--emit-relocs -Wl,--build-id -o prog prog.c || fail "cannot build prog"
run_ok want.out ./prog a bb
"$PAGEIN" --branches=yes --granularity=function --output="$PWD/t.trace" -- ./prog a bb > out 2> err || fail "pagein: $(head -3 err)"
expect_same want.out out "the program's output under pagein"
run_ok lb.out "$LB" --bolt llvm-bolt-16 --startup t.trace --no-check --keep kept -o prog.bolt ./prog
grep -q 'traces mismatching disassembled function contents: 0 ' kept/aggregate.log ||
	fail "BOLT 16 finds traces mismatching the code: $(grep mismatching kept/aggregate.log)"
expect_no_grep 'mismatching' lb.out "linkopt-bolt's report"
run_ok got.out ./prog.bolt a bb
expect_same want.out got.out "the rewritten program's output"
exit 0
