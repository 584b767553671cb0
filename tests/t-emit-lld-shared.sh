#!/bin/bash
# deporder --emit=lld with names that a shared library of the link defines
# too: the program's static error() (libc.so.6 has error) and libgcc.a's
# hidden __popcountdi2 (libgcc_s.so.1 has it; --as-needed drops that
# library).  lld warns "unable to order shared symbol: error" and "unable to
# order undefined symbol: __popcountdi2", yet orders this link's own
# definitions by those names: they stay in the file, which says in a
# comment which names draw the warning and why, and mk/startup.mk links
# with --no-warn-symbol-ordering.
. "$(dirname "$0")/lib.sh"
need_deporder
need ld.lld

cat > m.c <<'EOF2'
#include <stdio.h>
static __attribute__((noinline)) int error(int x) { return x * 3 + 1; }
__attribute__((noinline)) int popcount(unsigned long long v) { return __builtin_popcountll(v); }
__attribute__((noinline)) int unused(int x) { return x * 7; }
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %d\n", error(argc), popcount(argc * 0x1010101ull));
	return 0;
}
EOF2
gcc -O2 -mno-popcnt -ffunction-sections -c m.c || fail "cannot compile m.c"
nm m.o | grep -q ' U __popcountdi2$' || skip "gcc calls no __popcountdi2 here"
gcc -o want m.o && ./want > want.out || fail "the plain program"
deporder_ok order.lld order.err -q --granularity=section --emit=lld --cc -- gcc -o prog m.o
for s in error __popcountdi2 main popcount; do
	expect_grep "^$s\$" order.lld "lld's names"
done
grep '^# lld warns ' order.lld > note || fail "no note on names that shared libraries define too: $(head -3 order.lld)"
words=$(sed 's/.*silences it)://' note | tr ' ' '\n' | sort | tr '\n' ' ')
[[ $words == ' __popcountdi2 error ' ]] || fail "the note names '$words', not error and __popcountdi2"
# lld orders them all the same: error and __popcountdi2 come before unused.
printf 'error\n__popcountdi2\n' > first.lld
gcc -fuse-ld=lld -o prog m.o -Wl,--symbol-ordering-file,first.lld 2> lld.err || fail "lld: $(head -3 lld.err)"
expect_output want.out got.out "the lld-ordered program's output" ./prog
nm -n prog | awk '$2 ~ /^[tT]$/ { print $3 }' | grep -E '^(error|__popcountdi2|unused)$' > got.order
printf '%s\n' error __popcountdi2 unused > want.order
expect_same want.order got.order "lld's placement of the names it warns about"
gcc -fuse-ld=lld -o prog m.o -Wl,--symbol-ordering-file,order.lld -Wl,--no-warn-symbol-ordering 2> lld.err ||
	fail "lld: $(head -3 lld.err)"
expect_empty lld.err "lld with --no-warn-symbol-ordering"
exit 0
