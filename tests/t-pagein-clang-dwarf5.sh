#!/bin/bash
# Programs built by clang 14 and later with their default DWARF 5, which
# valgrind 3.19's line-table reader misreads (DW_FORM_strx1, addrx,
# rnglistx): with two compile units it reads past the file and ends the
# run ("Possibly corrupted debuginfo file ... Giving up"), and pagein used
# to blame an exec.  pagein reads no line tables: a PIE, a non-PIE program
# and a DSO, each of two compile units, are traced as they are, at their
# own paths, and every function entry the trace records is where nm puts
# that function.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/clang-lib.sh"
need_pagein
need readelf
need_clang

cat > prog.c <<'EOF'
#include <stdio.h>
int lib_answer(int);
int second(int);
__attribute__((noinline)) int helper(int x) { return x * 2 + 1; }
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %d\n", helper(argc) + second(argc), lib_answer(argc));
	return 0;
}
EOF
cat > second.c <<'EOF'
__attribute__((noinline)) int second(int x) { return x * 7; }
EOF
cat > lib.c <<'EOF'
int lib_more(int);
__attribute__((noinline)) int lib_answer(int x) { return lib_more(x) + 42; }
EOF
cat > lib2.c <<'EOF'
__attribute__((noinline)) int lib_more(int x) { return x - 1; }
EOF
# -g alone: the compiler's default DWARF version
"$CLANG" -g -O1 -fPIC -shared -o libans.so lib.c lib2.c || fail "cannot build libans.so with $CLANG"
"$CLANG" -g -O1 -fPIE -pie -o pie prog.c second.c -L. -lans -Wl,-rpath,"$PWD" || fail "cannot build pie"
"$CLANG" -g -O1 -fno-pie -no-pie -o nopie prog.c second.c -L. -lans -Wl,-rpath,"$PWD" ||
	fail "cannot build nopie"
for f in libans.so pie nopie; do
	readelf --debug-dump=info "$f" 2> /dev/null | grep -E '^ +Version: +[0-9]+' | sort -u > "$f.versions"
	expect_grep '^ +Version: +5$' "$f.versions" "DWARF versions of $f (the fixture needs DWARF 5)"
done
[[ $(./pie) == '10 42' ]] || fail "the program built by $CLANG does not run"

# nm's functions of FILE as "0xOFFSET NAME"
nm_functions() {
	nm "$1" | awk '$2 ~ /^[Tt]$/ { print $1, $3 }' | while read -r a n; do printf '0x%x %s\n' $((16#$a)) "$n"; done |
		sort > "$2"
}

for p in pie nopie; do
	status=0
	"$PAGEIN" --granularity=function --out-file="$PWD/$p.trace" -- "./$p" > "$p.out" 2> "$p.err" || status=$?
	((status == 0)) || fail "pagein on the $CLANG $p exited $status: $(grep -v '^###' "$p.err" | head -4)"
	expect_no_grep 'Giving up|replaced itself|unreadable' "$p.err" "pagein's messages on $p"
	[[ $(cat "$p.out") == '10 42' ]] || fail "the traced $p printed '$(cat "$p.out")'"
	expect_grep '^# end$' "$p.trace" "the trace of $p"
	# the traced program is the real one: its own path and build-id
	id=$(readelf -n "$p" | awk '/Build ID/ { print $3 }')
	expect_grep "^# object $PWD/$p build-id $id base " "$p.trace" "the object table of $p"
	nm_functions "$p" "$p.nm"
	nm_functions libans.so lib.nm
	# nopie's records are absolute, and its base 0: the same offsets
	relative "$p.trace" "$PWD/$p" F | sort > "$p.entries"
	relative "$p.trace" "$PWD/libans.so" F | sort > "$p.lib.entries"
	for f in main helper second; do
		expect_grep " $f\$" "$p.entries" "the functions first executed in $p"
	done
	for f in lib_answer lib_more; do
		expect_grep " $f\$" "$p.lib.entries" "the functions first executed in libans.so (by $p)"
	done
	comm -23 "$p.entries" "$p.nm" > "$p.misplaced"
	expect_empty "$p.misplaced" "function entries of $p not where nm puts them"
	comm -23 "$p.lib.entries" lib.nm > "$p.lib.misplaced"
	expect_empty "$p.lib.misplaced" "function entries of libans.so not where nm puts them"
done
exit 0
