#!/bin/bash
# A program whose linker script gives it 28 PT_LOAD segments (24 output
# sections, each one function, each after a gap of two pages of address,
# so that their file pages follow one another while their addresses do
# not): pagein finds it one object, with a segment line for each of its
# PT_LOADs, the base the kernel mapped it at, and every page its 24
# functions run on.  pagein kept 16 segments of an object: the mappings
# of the others were recorded as two more objects, with bases that put
# their code at other addresses (3 object lines, 15 + 10 code pages).
# A position-independent program and a shared library the same way.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

{
	for i in $(seq 0 23); do
		echo "__attribute__((noinline)) int f$i(int x) { return x * $((i + 3)) + $i; }"
	done
	echo 'int run(int c) { int s = 0;'
	for i in $(seq 0 23); do echo "	s += f$i(c);"; done
	echo '	return s; }'
} > chunks.c
echo 'int run(int); int main(int argc, char **argv) { (void)argv; return run(argc) == 12345; }' > main.c
{
	echo 'SECTIONS {'
	for i in $(seq 0 23); do
		echo "	. = . + 2 * CONSTANT (MAXPAGESIZE);"
		echo "	.text.chunk$i : { *(.text.f$i) }"
	done
	echo '} INSERT AFTER .text;'
} > chunks.ld
gcc -O2 -ffunction-sections -o prog main.c chunks.c -Wl,-T,chunks.ld || fail "cannot link prog"
gcc -O2 -ffunction-sections -fPIC -shared -o libchunks.so chunks.c -Wl,-T,chunks.ld || fail "cannot link libchunks.so"
gcc -O2 -o dyn main.c -L. -lchunks -Wl,-rpath,"$PWD" || fail "cannot link dyn"
run_ok prog.out ./prog
run_ok dyn.out ./dyn

# check TRACE FILE: FILE is one object of TRACE, with all its PT_LOADs,
# and each f's page is one of the code pages of FILE's records
check() {
	local trace=$1 file=$2 loads objects segments i page missing=()
	loads=$(readelf -lW "$file" | grep -c ' LOAD ')
	((loads > 16)) || fail "fixture: $file has $loads PT_LOAD segments, not more than 16"
	objects=$(grep -c "^# object $PWD/$file " "$trace")
	((objects == 1)) || fail "$trace: $objects object lines for $file: $(grep "^# object $PWD/$file " "$trace" | tr '\n' ';')"
	segments=$(grep -c "^# segment $PWD/$file " "$trace")
	((segments == loads)) || fail "$trace: $segments segment lines for $file, which has $loads PT_LOADs"
	relative "$trace" "$PWD/$file" C | while read -r address _; do
		printf '0x%x\n' $((address & ~0xfff))
	done | sort -u > "$trace.pages"
	for i in $(seq 0 23); do
		page=$(page_of_symbol "$file" "f$i")
		grep -qx "$page" "$trace.pages" || missing+=("f$i@$page")
	done
	((${#missing[@]} == 0)) || fail "$trace: pages of $file's functions not recorded: ${missing[*]} (recorded: $(tr '\n' ' ' < "$trace.pages"))"
}

for p in prog dyn; do
	status=0
	"$PAGEIN" --output="$PWD/$p.trace" -- "./$p" > /dev/null 2> "$p.err" || status=$?
	((status == 0)) || fail "pagein ./$p: exit $status: $(head -5 "$p.err")"
done
check prog.trace prog
check dyn.trace libchunks.so
exit 0
