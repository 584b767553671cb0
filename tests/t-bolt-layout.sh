#!/bin/bash
# Where linkopt-bolt has BOLT put the code: back in the original .text,
# on 4 KiB pages (-use-old-text -no-huge-pages), with llvm-bolt-16 and,
# when it is there, llvm-bolt-22: the hot code starts the old .text,
# aligned on 64 bytes rather than a page (-align-text=64, as BOLT's
# summary says), and no segment aligned on 2 MiB is added.  With --new-segment, BOLT's own
# layout: the code in a new segment aligned on 2 MiB.  A user's
# -split-functions=0 replaces linkopt-bolt's own splitting.  BINARY may be
# named without a slash.  Each rewrite has a build-id of its own.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need llvm-bolt-16 readelf nm
LB=$TOP/linkopt-bolt/linkopt-bolt
[[ -x $LB ]] || fail "linkopt-bolt is not built"

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
volatile int sink;
int filler_call(int i, int x);
__attribute__((noinline)) void cold_path(int x) { sink += x * 7; printf("cold %d\n", x); }
__attribute__((noinline)) int hot(int x)
{
	if (__builtin_expect(x == 123456, 0))
		cold_path(x);
	return (x * 2654435761u) >> 7;
}
int main(int argc, char **argv)
{
	long s = 0;
	int i, n = argc > 1 ? atoi(argv[1]) : 1000;

	for (i = 0; i < n; i++)
		s += hot(i) & 0xff;
	if (argc > 2)
		s += filler_call(atoi(argv[2]), n);
	printf("%ld\n", s);
	return 0;
}
EOF2
# cold code enough for the old .text to hold the rewritten code: gcc aligns
# these functions on 512 bytes, BOLT on 64, and the 4 KiB page the hot code
# starts on fits in the difference
{
	for ((i = 0; i < 64; i++)); do
		printf 'int filler%d(int x) { int s = 0; for (int j = 0; j < x; j++) s += (j ^ %d) * (s | 1); return s; }\n' $i $i
	done
	printf 'int filler_call(int i, int x)\n{\n\tswitch (i) {\n'
	for ((i = 0; i < 64; i++)); do
		printf '\tcase %d: return filler%d(x);\n' $i $i
	done
	printf '\t}\n\treturn 0;\n}\n'
} > filler.c
gcc -O2 -g -c prog.c || fail "cannot compile prog.c"
gcc -O2 -g -falign-functions=512 -c filler.c || fail "cannot compile filler.c"
gcc -Wl,--emit-relocs -o prog prog.o filler.o || fail "cannot link prog"
"$PAGEIN" --granularity=function --branches=yes --output="$PWD/startup.trace" -- ./prog 2000 > /dev/null 2> err ||
	fail "pagein: $(head -3 err)"
read -r text_lo text_size <<< "$(readelf -SW prog | awk '$2 == ".text" { print "0x" $4, "0x" $6 }')"
[[ -n $text_lo ]] || fail "prog has no .text"

addr_of() { # FILE SYMBOL
	local v
	v=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[[ -n $v ]] || fail "nm finds no $2 in $1"
	echo $((0x$v))
}
big_segments() { # FILE: the LOAD segments aligned on 2 MiB
	readelf -lW "$1" | awk '$1 == "LOAD" && $NF == "0x200000"' | wc -l
}
bolts=(llvm-bolt-16)
command -v llvm-bolt-22 > /dev/null && bolts+=(llvm-bolt-22)
for bolt in "${bolts[@]}"; do
	"$LB" --bolt "$bolt" --startup startup.trace --check './%b 3000 7' -o "prog.$bolt" ./prog > "$bolt.out" 2> "$bolt.err" ||
		fail "linkopt-bolt with $bolt: $(cat "$bolt.err")"
	expect_grep 'using original \.text for new code with 0x40 alignment' "$bolt.out" "the summary with $bolt"
	hot=$(addr_of "prog.$bolt" hot)
	((hot >= text_lo && hot < text_lo + text_size)) ||
		fail "$bolt: hot is at $(printf 0x%x "$hot"), outside the original .text ($text_lo, $text_size bytes)"
	[[ $(addr_of "prog.$bolt" hot) != $(addr_of prog hot) ]] || fail "$bolt did not move hot"
	(($(big_segments "prog.$bolt") == 0)) || fail "$bolt added a segment aligned on 2 MiB: $(readelf -lW "prog.$bolt" | grep LOAD)"
	[[ $("./prog.$bolt" 3000 7) == $(./prog 3000 7) ]] || fail "the program rewritten by $bolt prints another result"

	"$LB" --bolt "$bolt" --startup startup.trace --new-segment --check './%b 3000 7' -o "new.$bolt" ./prog > "new-$bolt.out" 2> "new-$bolt.err" ||
		fail "linkopt-bolt --new-segment with $bolt: $(cat "new-$bolt.err")"
	hot=$(addr_of "new.$bolt" hot)
	((hot >= text_lo + text_size)) || fail "$bolt --new-segment: hot is at $(printf 0x%x "$hot"), not in a new segment"
	(($(big_segments "new.$bolt") == 1)) ||
		fail "$bolt --new-segment: no segment aligned on 2 MiB: $(readelf -lW "new.$bolt" | grep LOAD)"
done
# each rewrite has a build-id of its own: BOLT flips a bit of its input's,
# so two layouts of one input carried one build-id (and perf's cache, or
# a trace of one, took the other for it)
bid() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
[[ -n $(bid prog.llvm-bolt-16) && $(bid prog.llvm-bolt-16) != "$(bid new.llvm-bolt-16)" ]] ||
	fail "two rewrites of prog carry one build-id: $(bid prog.llvm-bolt-16), $(bid new.llvm-bolt-16)"
[[ $(bid prog.llvm-bolt-16) != "$(bid prog)" ]] || fail "the rewrite carries its input's build-id"
# BINARY named without a slash, as in its own folder (the loader's check
# ran "ld.so prog", which looks prog up as a library, and refused it)
run_ok bare.out "$LB" -q --bolt llvm-bolt-16 --startup startup.trace --no-check -o bare prog
[[ $(./bare 3000 7) == $(./prog 3000 7) ]] || fail "the rewrite of a bare-named prog prints another result"
# the user's -split-functions=0 stands for linkopt-bolt's splitting (BOLT
# refuses an option given twice)
run_ok dry.out "$LB" -n --bolt llvm-bolt-16 --startup startup.trace --bolt-option -split-functions=0 -o dry ./prog
expect_grep ' -split-functions=0' dry.out
grep -qE ' -split-functions( |$)| -split-all-cold' dry.out && fail "linkopt-bolt split functions all the same: $(cat dry.out)"
run_ok dry2.out "$LB" -n --bolt llvm-bolt-16 --startup startup.trace -o dry ./prog
expect_grep ' -split-functions -split-all-cold' dry2.out
exit 0
