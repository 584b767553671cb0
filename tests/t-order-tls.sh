#!/bin/bash
# A map with thread-local symbols: ld's map gives a __thread variable's
# address, the binary's symbol table its offset in the TLS template (the
# PT_TLS segment).  deporder compares the two as what they are: a program
# with __thread variables, and a -static link (libc's own TLS symbols),
# ordered from a pagein trace and its map, are accepted, and each relink
# runs as before; the map of a link where only the TLS variables moved (two
# objects of one __thread variable each, swapped) is refused as the map of
# another link.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > m.c <<'EOF2'
#include <stdio.h>
extern __thread int ta, tb;
__thread int zeroed;
__attribute__((noinline)) int bump(int x)
{
	ta += x;
	tb *= 3;
	zeroed++;
	return ta * 100 + tb * 10 + zeroed;
}
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", bump(argc));
	return 0;
}
EOF2
echo '__thread int ta = 1;' > t1.c
echo '__thread int tb = 2;' > t2.c
cc_objs -ffunction-sections -fdata-sections -- m.c t1.c t2.c

# ordered NAME LINK-FLAGS...: link prog-NAME with a map, trace it, order it
# with deporder --emit=gnu-ld, relink with the script; the relink prints
# what the traced link prints.
ordered() {
	local name=$1
	shift
	gcc "$@" -o "prog-$name" m.o t1.o t2.o -Wl,-Map="$name.map" || fail "the $name link"
	run_ok "$name.want" "./prog-$name"
	"$PAGEIN" --granularity=function --output="$PWD/$name.trace" -- "./prog-$name" > /dev/null 2>&1 ||
		fail "pagein on prog-$name"
	deporder_ok "$name.ld" "$name.err" -q --granularity=section --trace "$name.trace" --map "$name.map" \
		--emit=gnu-ld --cc -- gcc "$@" -o "prog-$name" m.o t1.o t2.o
	gcc "$@" -o "prog-$name-ordered" m.o t1.o t2.o -Wl,-T,"$name.ld" || fail "the $name link with the script"
	expect_output "$name.want" "$name.got" "the ordered $name program's output" "./prog-$name-ordered"
}

ordered dynamic
readelf -sW prog-dynamic | awk '$4 == "TLS" && $8 == "ta"' > tls.sym
expect_nonempty tls.sym "the TLS symbol of the dynamic link"
ordered static -static

# Only the TLS template changed: the other symbols sit where they were.
gcc -o prog-swapped m.o t2.o t1.o -Wl,-Map=swapped.map || fail "the swapped link"
nm prog-dynamic | grep -Ev ' (ta|tb)$' > kept.dynamic
nm prog-swapped | grep -Ev ' (ta|tb)$' > kept.swapped
expect_same kept.dynamic kept.swapped "the symbols but ta and tb"
DEP_ERR=swapped.err
run_deporder swapped.ld swapped.err -q --granularity=section --trace dynamic.trace --map swapped.map \
	--binary prog-dynamic --emit=gnu-ld --cc -- gcc -o prog-dynamic m.o t1.o t2.o
expect_status 1 "the map of the swapped link"
expect_grep "^deporder: swapped\.map: does not describe prog-dynamic: 2 of [0-9]+ symbols are elsewhere \('t[ab]' at 0x[0-9a-f]+ in the map, 0x[0-9a-f]+ in the binary; 't[ab]' at " \
	swapped.err "the map of the swapped link"
exit 0
