#!/bin/bash
# A program not linked as PIE keeps in .got the addresses of functions
# its code takes through it (-fPIC code, -Wl,--no-relax) with no
# relocation naming them; BOLT moves the functions and updates those
# slots.  linkopt-bolt takes the update (each slot still at the entry of
# the function of its name) and writes the file, which runs: before, it
# refused it for bytes of the writable segments changed where no
# relocation lies.  With every llvm-bolt installed (16, 22).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need readelf od
LB=$TOP/linkopt-bolt/linkopt-bolt
[[ -x $LB ]] || fail "linkopt-bolt is not built"
bolts=()
for v in 16 22; do
	command -v llvm-bolt-$v > /dev/null && bolts+=(llvm-bolt-$v)
done
((${#bolts[@]})) || skip "needs llvm-bolt-16 or llvm-bolt-22 (apt-get install bolt-16)"

cp "$TESTDIR/bolt-relr.c" prog.c
gcc -O2 -g -fPIC -no-pie -Wl,--no-relax -Wl,--emit-relocs -o prog prog.c || fail "cannot build prog"
./prog 1000 > want || fail "prog does not run"
"$PAGEIN" --granularity=function --branches=yes --output="$PWD/startup.trace" -- ./prog 2000 > /dev/null 2> err ||
	fail "pagein: $(head -3 err)"

# got FILE: the bytes of .got, in hex
got() {
	local offset size
	read -r offset size < <(readelf -SW "$1" | awk '$2 == ".got" { print $5, $6 }')
	[[ -n $size ]] || fail "$1 has no .got"
	od -An -tx1 -j $((0x$offset)) -N $((0x$size)) "$1" | tr -d ' \n'
}

for bolt in "${bolts[@]}"; do
	run_ok lb.$bolt "$LB" -q --bolt $bolt --startup startup.trace --check './%b 1000' -o out.$bolt ./prog
	expect_output want run.$bolt "the file $bolt rewrote" ./out.$bolt 1000
	[[ $(got prog) != "$(got out.$bolt)" ]] ||
		fail "$bolt left .got as it was: the case is not exercised (the fixture needs a function BOLT moves)"
done
exit 0
