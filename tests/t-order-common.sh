#!/bin/bash
# A fresh trace of a -fcommon build matches its link: pagein's data object
# records of common symbols, which no input section holds (ld's map lists
# them under their file's COMMON in .bss), match when the map lists the
# name at that address and the file still has a common symbol of that name
# and size; one that changed size since is stale and the trace refused.
# Before, every such record counted as stale and a fresh trace was refused.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > m.c <<'EOF2'
#include <stdio.h>
int table[100];
int shared_common[10];
extern int lib_state;
int work(int);
int main(void)
{
	table[5] = work(3);
	shared_common[2] = table[5];
	printf("%d\n", table[5] + lib_state + shared_common[2]);
	return 0;
}
EOF2
cat > w.c <<'EOF2'
int lib_state;
int shared_common[20];
char big_buffer[BIG];
__attribute__((noinline)) int work(int x)
{
	lib_state = x;
	shared_common[15] = x;
	big_buffer[x] = 1;
	return x * 2 + big_buffer[3];
}
EOF2
build() { # SIZE-OF-big_buffer
	gcc -O2 -g -fcommon -ffunction-sections -fdata-sections -DBIG="$1" -c m.c w.c || fail "cannot compile"
	rm -f libw.a && ar rcs libw.a w.o
}
build 10000
nm w.o | grep -q ' C big_buffer$' || skip "the compiler made no common symbol with -fcommon"
gcc -o prog m.o libw.a -Wl,-Map=prog.map || fail "cannot link"
expect_grep '^ COMMON +0x[0-9a-f]+ +0x[0-9a-f]+ libw\.a\(w\.o\)$' prog.map "the map's COMMON of w.o"
"$PAGEIN" --granularity=function --output="$PWD/prog.trace" -- ./prog > /dev/null 2> err || fail "pagein: $(head -3 err)"
commons=$(grep -cE ' O .* (table|shared_common|lib_state|big_buffer) \(in '"$PWD"'/prog\)$' prog.trace)
((commons >= 3)) || fail "the trace has $commons records of common symbols, not at least 3: $(grep ' O ' prog.trace)"

run_deporder order err --granularity=section --trace prog.trace --map prog.map --cc -- gcc -o prog m.o libw.a
DEP_ERR=err expect_status 0 "a fresh trace of a -fcommon build"
expect_grep "^deporder: prog\.trace: [0-9]+ records of .* matched an input section of the link \(100\.0%\), $commons matched a common symbol" \
	err "the match report"

# big_buffer shrinks: its record no longer fits the file's common symbol.
build 100
run_deporder order err --granularity=section --min-match=100 --trace prog.trace --map prog.map \
	--cc -- gcc -o prog m.o libw.a
DEP_ERR=err expect_status 1 "a common symbol that shrank since the traced link"
expect_grep '^  libw\.a\(w\.o\)	COMMON$' err "the stale common named"
exit 0
