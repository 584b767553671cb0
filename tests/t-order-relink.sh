#!/bin/bash
# Trace, order, relink: a program's functions are scattered over many pages;
# pagein traces its start-up; deporder --trace maps every record through the
# link map to an input section and emits the order for GNU ld (a complete
# linker script), gold and lld.  Each relinked program runs as before, its
# start-up functions come first in first-touch order, and the start-up
# touches fewer code pages.  A clone (.constprop) maps to its own section; a
# stale trace is refused.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need ld.gold ld.lld

# 24 functions of about 3 KiB each; start-up runs f3, f17, f9, f21, f5 and
# a clone of g; the rest run only with an argument.
{
	echo '#include <stdio.h>'
	echo '#include <string.h>'
	for i in $(seq 0 23); do
		printf '__attribute__((noinline)) int f%d(int x)\n{\n\tvolatile int a[64];\n' "$i"
		printf '\tfor (int k = 0; k < 64; k++)\n\t\ta[k] = x * %d + k;\n' "$((i + 3))"
		for j in $(seq 1 90); do printf '\tx = x * %d + a[%d];\n' "$((j % 7 + 2))" "$((j % 64))"; done
		printf '\treturn x;\n}\n'
	done
	cat <<'EOF2'
static __attribute__((noinline)) int g(int x, int mode)
{
	if (mode == 1)
		return x * 3 + 1;
	return x - mode;
}
int main(int argc, char **argv)
{
	int s = f3(1) + f17(2) + f9(3) + f21(4) + f5(5) + g(argc, 1);
	if (argc > 1 && !strcmp(argv[1], "all"))
		for (int i = 0; i < 24; i++)
			s += f0(i) + f1(i) + f2(i) + f4(i) + f6(i) + f7(i) + f8(i) + f10(i) + f11(i) + f12(i) +
			     f13(i) + f14(i) + f15(i) + f16(i) + f18(i) + f19(i) + f20(i) + f22(i) + f23(i);
	printf("%d\n", s);
	return 0;
}
EOF2
} > prog.c
# -g3: the map then lists debug sections (.debug_macro is large) at addresses from 0, which must not
# be taken for code.
gcc -O2 -g3 -ffunction-sections -fdata-sections -c prog.c || fail "cannot compile prog.c"
grep -q 'constprop' <(readelf -SW prog.o) || skip "gcc made no .constprop clone of g here"
gcc -o prog-default prog.o -Wl,-Map=default.map || fail "default link"
run_ok want.out ./prog-default
"$PAGEIN" --granularity=function --output="$PWD/default.trace" -- ./prog-default > /dev/null 2>&1 ||
	fail "pagein on the default link"

code_pages() { relative "$1" "$PWD/$2" C | wc -l; }
before=$(code_pages default.trace prog-default)

deporder_emit() { # FORM OUTPUT
	"$DEPORDER" -q --granularity=section --page-size=0 --trace default.trace --map default.map --emit="$1" \
		--cc -- gcc -o prog prog.o > "$2" 2> emit.err || fail "deporder --emit=$1: $(head -3 emit.err)"
}
# Every record lands in a loaded section: never in debugging information,
# whose map addresses start at 0 and overlap the code's.
"$DEPORDER" -q --granularity=section --page-size=0 --trace default.trace --map default.map \
	--cc -- gcc -o prog prog.o > order.list 2> /dev/null || fail "deporder --trace (list)"
expect_no_grep '	\.debug' order.list "the order"
head -8 order.list | cut -f2 > got
printf '%s\n' .text .text.startup.main .text.f3 .text.f17 .text.f9 .text.f21 .text.f5 .text.g.constprop.0 > want
expect_same want got "the first sections of the order"
# lld's call-graph form from the trace alone: consecutive first touches.
"$DEPORDER" -q --granularity=section --trace default.trace --map default.map --emit=lld-call-graph \
	--cc -- gcc -o prog prog.o > callgraph.txt 2> /dev/null || fail "deporder --emit=lld-call-graph"
expect_grep '^main f3 1$' callgraph.txt "the call graph"
expect_grep '^f3 f17 1$' callgraph.txt "the call graph"
gcc -fuse-ld=lld -o prog-cg prog.o -Wl,--call-graph-ordering-file,callgraph.txt || fail "lld with the call graph"
expect_output want.out got.out "prog-cg's output" ./prog-cg
deporder_emit gnu-ld order.ld
deporder_emit gold order.gold
deporder_emit lld order.lld
expect_grep '^deporder: default\.trace: [0-9]+ records of .*: [0-9]+ matched an input section of the link \(100\.0%\)' \
	emit.err "the match report"
expect_grep '^    prog\.o\(\.text\.g\.constprop\.0\)$' order.ld "the clone's own section in the script"
expect_grep '^\.text\.g\.constprop\.0$' order.gold "the clone in gold's file"
expect_grep '^g\.constprop\.0$' order.lld "the clone in lld's file"
expect_grep '^/\* deporder \(linkopt ' order.ld "the script says what it was made from"

gcc -o prog-gnu prog.o -Wl,-T,order.ld || fail "link with the script"
gcc -fuse-ld=gold -o prog-gold prog.o -Wl,--section-ordering-file,order.gold || fail "link with gold"
gcc -fuse-ld=lld -o prog-lld prog.o -Wl,--symbol-ordering-file,order.lld || fail "link with lld"

# Start-up functions first, in first-touch order, one after another.
want_order='main f3 f17 f9 f21 f5 g.constprop.0'
for p in prog-gnu prog-gold prog-lld; do
	expect_output want.out got.out "$p's output" ./$p
	nm -n $p | awk '$2 ~ /^[tT]$/ { print $3 }' |
		grep -E '^(main|f[0-9]+|g\.constprop\.0)$' | head -7 | tr '\n' ' ' | sed 's/ $//' > got.order
	[[ $(cat got.order) == "$want_order" ]] || fail "$p: the first functions are '$(cat got.order)', not '$want_order'"
	"$PAGEIN" --granularity=function --output="$PWD/$p.trace" -- ./$p > /dev/null 2>&1 || fail "pagein on $p"
	after=$(code_pages $p.trace $p)
	((after < before)) || fail "$p: start-up touches $after code pages, the default link $before"
	echo "$p: $before -> $after code pages at start-up"
done

# linkopt-prefetch.o: with the script's __linkopt_hot_start/_end, the
# program asks for its traced code at start-up in one madvise call.
gcc -o prog-prefetch prog.o "$TOP/prefetch/linkopt-prefetch.o" -Wl,-T,order.ld || fail "link with prefetch"
expect_output want.out got.out "prog-prefetch's output" ./prog-prefetch
if command -v strace > /dev/null; then
	strace -f -e trace=madvise -o madvise.txt ./prog-prefetch > /dev/null || fail "strace"
	expect_grep 'madvise\(0x[0-9a-f]+, [0-9]+, MADV_WILLNEED\) = 0' madvise.txt "the prefetch"
fi
gcc -o prog-prefetch-plain prog.o "$TOP/prefetch/linkopt-prefetch.o" || fail "prefetch without the script"
expect_output want.out got.out "prefetch object without the script's symbols" ./prog-prefetch-plain

# A failed emission (gold cannot take whole objects) leaves --out's file alone.
cp order.gold order.gold.before
status=0
"$DEPORDER" -q --trace default.trace --map default.map --emit=gold --out order.gold \
	--cc -- gcc -o prog prog.o 2> gold-object.err || status=$?
((status == 2)) || fail "gold with whole objects: status $status"
expect_grep 'use --granularity=section' gold-object.err "gold with whole objects"
cmp -s order.gold order.gold.before || fail "a failed emission changed order.gold"
ls order.gold.tmp* > /dev/null 2>&1 && fail "a failed emission left a temporary file"

# A position-dependent executable and a shared library: the script is the
# linker's own for each (-no-pie, -shared), and the order holds.
gcc -no-pie -o prog-nopie-default prog.o -Wl,-Map=nopie.map || fail "-no-pie link"
"$PAGEIN" --granularity=function --output="$PWD/nopie.trace" -- ./prog-nopie-default > /dev/null 2>&1 ||
	fail "pagein on the -no-pie link"
"$DEPORDER" -q --granularity=section --page-size=0 --trace nopie.trace --map nopie.map --emit=gnu-ld \
	--cc -- gcc -no-pie -o prog-nopie prog.o > nopie.ld 2> /dev/null || fail "deporder -no-pie"
expect_no_grep '^/\* Script for -pie' nopie.ld "the -no-pie script"
gcc -no-pie -o prog-nopie prog.o -Wl,-T,nopie.ld || fail "link -no-pie with the script"
expect_output want.out got.out "prog-nopie's output" ./prog-nopie
[[ $(nm -n prog-nopie | awk '$3 ~ /^(main|f[0-9]+|g\.constprop\.0)$/ { print $3 }' | head -7 | tr '\n' ' ') == "$want_order " ]] ||
	fail "prog-nopie: the start-up functions are not first"

sed -n 's/^int main(int argc, char \*\*argv)$/int run(int argc, char **argv)/; p' prog.c > lib.c
printf 'int run(int, char **);\nint main(int argc, char **argv) { return run(argc, argv); }\n' > client.c
gcc -O2 -fPIC -ffunction-sections -c lib.c && gcc -O2 -c client.c || fail "compile the library"
gcc -shared -o libprog.so lib.o -Wl,-Map=lib.map || fail "link the library"
gcc -o client client.o -L. -lprog -Wl,-rpath,"$PWD" || fail "link the client"
"$PAGEIN" --granularity=function --output="$PWD/lib.trace" -- ./client > /dev/null 2>&1 || fail "pagein on the client"
"$DEPORDER" -q --granularity=section --page-size=0 --trace lib.trace --map lib.map --trace-object='*/libprog.so' \
	--emit=gnu-ld --cc -- gcc -shared -o libprog.so lib.o > lib.ld 2> lib.err || fail "deporder -shared: $(head -3 lib.err)"
expect_grep '^/\* Script for -shared' lib.ld "the -shared script"
gcc -shared -o libprog.so lib.o -Wl,-T,lib.ld || fail "link the library with the script"
expect_output want.out got.out "the client's output with the ordered library" ./client
[[ $(nm -n libprog.so | awk '$3 ~ /^(run|f[0-9]+|g\.constprop\.0)$/ { print $3 }' | head -7 | tr '\n' ' ') == "run f3 f17 f9 f21 f5 g.constprop.0 " ]] ||
	fail "libprog.so: the start-up functions are not first: $(nm -n libprog.so | awk '$3 ~ /^(run|f[0-9]+)$/ { print $3 }' | head -7 | tr '\n' ' ')"

# A stale trace: f9 changed size since the traced link.  Refused, with the
# missing section named.
sed -i 's/a\[k\] = x \* 12 + k;/a[k] = x * 12 + k + (x >> 3) * (k \& 1);/' prog.c
gcc -O2 -ffunction-sections -fdata-sections -c prog.c || fail "recompile"
status=0
"$DEPORDER" -q --granularity=section --trace default.trace --map default.map --min-match=100 --emit=gnu-ld \
	--cc -- gcc -o prog prog.o > stale.ld 2> stale.err || status=$?
((status == 1)) || fail "a stale trace was not refused (status $status)"
expect_grep 'recompiled since it was linked, or another link command; missing:' stale.err "stale trace"
expect_grep '^  prog\.o	\.text\.f9$' stale.err "the changed section named"
# A refused run leaves the order file it would have replaced as it was; an
# accepted worse one says what it replaces.
cp order.ld order.ld.before
status=0
"$DEPORDER" -q --granularity=section --trace default.trace --map default.map --min-match=100 --emit=gnu-ld \
	--out order.ld --cc -- gcc -o prog prog.o 2> /dev/null || status=$?
((status == 1)) || fail "a refused run: status $status"
cmp -s order.ld order.ld.before || fail "a refused run changed order.ld"
ls order.ld.tmp* > /dev/null 2>&1 && fail "a refused run left a temporary file"
"$DEPORDER" -q --granularity=section --trace default.trace --map default.map --min-match=50 --emit=gnu-ld \
	--out order.ld --cc -- gcc -o prog prog.o 2> worse.err || fail "a run at --min-match=50 failed"
expect_grep '^deporder: warning: order\.ld: replacing an order that matched 100\.0% of its traces with one that matches [0-9.]+%$' \
	worse.err "a worse order"
exit 0
