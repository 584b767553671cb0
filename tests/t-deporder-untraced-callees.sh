#!/bin/bash
# deporder --untraced-order=callees (gnu-ld): the code no trace ran that
# the traced code calls goes next to the traced code, then what that
# calls, nearest first, before the rest of the untraced code: a run the
# traces did not see (another input, another option) most likely runs
# the callees of what they ran.  A program whose start-up functions each
# call a rare function on an input the trace did not see (rareN, which
# calls deepN), with forty unrelated 8 KiB functions between them and the
# traced code in the link's order: with callees the rare functions
# follow the traced code (each rare before every deep, every deep before
# every unrelated one), the output is the same, and a cold start of the
# rare path is predicted to read fewer pages than with the link's order;
# the traced code is where it was.  Refused (usage) without a trace and
# for another linker.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein

{
	echo '#include <stdio.h>'
	echo '#include <stdlib.h>'
	big_functions other 40
	for i in $(seq 0 5); do
		printf 'int rare%d(int x);\n' "$i"
		printf '__attribute__((noinline)) int hot%d(int x, int rare)\n{\n' "$i"
		printf '\treturn rare ? rare%d(x) : x * %d + 3;\n}\n' "$i" "$((i + 5))"
	done
	printf 'int (*const table[40])(int) = {'
	for i in $(seq 0 39); do printf ' other%d,' "$i"; done
	echo ' };'
	cat <<'EOF'
/* run first: the link's order (what ld reaches first from main) puts the
   unrelated functions it names (through the table) before the rare ones */
__attribute__((noinline)) int pick(int argc, char **argv)
{
	return argc > 1 && atoi(argv[1]) >= 0 ? table[atoi(argv[1]) % 40](argc) : 0;
}

int main(int argc, char **argv)
{
	int r = argc > 1 && atoi(argv[1]) < 0, s = pick(argc, argv);

	s += hot0(1, r) + hot1(2, r) + hot2(3, r) + hot3(4, r) + hot4(5, r) + hot5(6, r);
	printf("%d\n", s);
	return 0;
}
EOF
} > prog.c
# the rare functions in an object of their own
for i in $(seq 0 5); do
	printf '__attribute__((noinline)) int deep%d(int x)\n{\n\treturn x * %d + 7;\n}\n' "$i" "$((i + 3))"
	printf '__attribute__((noinline)) int rare%d(int x)\n{\n\treturn deep%d(x) + %d;\n}\n' "$i" "$i" "$i"
done > rare.c
# and forty more no code names, after them: the rare functions are not next
# to the data either
big_functions spare 40 > spare.c
gcc -O2 -ffunction-sections -fdata-sections -c prog.c rare.c spare.c || fail "compile"
gcc -o prog prog.o rare.o spare.o -Wl,-Map=prog.map || fail "the default link"
"$PAGEIN" --granularity=function --output="$PWD/trace" -- ./prog > want.out 2> pagein.err ||
	fail "pagein: $(head -3 pagein.err)"
./prog -1 > want-rare.out || fail "prog -1"
for n in link callees; do
	deporder_ok $n.ld $n.err -q --granularity=section --placement=head --emit=gnu-ld --untraced-order=$n \
		--trace trace --map prog.map --cc -- gcc -o prog prog.o rare.o spare.o
	gcc -o $n prog.o rare.o spare.o -Wl,-T,$n.ld || fail "the link of $n.ld: $(cat $n.err)"
	expect_output want.out got.out "$n's output" ./$n
	expect_output want-rare.out got-rare.out "$n's output on the rare path" ./$n -1
done

# address N SYMBOL: SYMBOL's address in N, in decimal
address() {
	local a
	a=$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')
	[[ -n $a ]] || fail "$1 has no $2"
	echo $((16#$a))
}
hot_end=$(address callees hot5)
for n in link callees; do
	last_rare=0 first_deep=-1 last_deep=0 first_other=-1
	for i in $(seq 0 5); do
		a=$(address $n rare$i) b=$(address $n deep$i)
		((a > last_rare)) && last_rare=$a
		((first_deep < 0 || b < first_deep)) && first_deep=$b
		((b > last_deep)) && last_deep=$b
	done
	for i in $(seq 0 39); do
		a=$(address $n other$i)
		((first_other < 0 || a < first_other)) && first_other=$a
	done
	echo "$n: last rare $last_rare, first deep $first_deep, last deep $last_deep, first other $first_other"
	if [[ $n == callees ]]; then
		((last_rare < first_deep)) || fail "callees: a rare function (the traced code's callees) after a deep one"
		((last_deep < first_other)) || fail "callees: a deep function after an unrelated one"
		((hot_end < first_deep)) || fail "callees: the traced code (hot5 at $hot_end) after the untraced"
	else
		((last_deep > first_other)) || fail "link: the test shows nothing: the link's order already puts the callees first"
	fi
done
# the traced code where it was: the same functions at the head, in the same order
for n in link callees; do
	nm -n $n | awk '$3 ~ /^(hot[0-9]|main)$/ { print $3 }' > $n.hot
done
expect_same link.hot callees.hot "the traced functions' order"

# the rare path's cold start, in the model: the callees first read less
for n in link callees; do
	"$PAGEIN" --granularity=function --output="$PWD/$n.rare.trace" -- ./$n -1 > /dev/null 2> pagein.err ||
		fail "pagein on $n -1: $(head -3 pagein.err)"
	run_ok $n.cold "$PAGEIN" report --read-ahead-kb 128 $n.rare.trace
done
# pages N: the file pages the model reads of N's cold start
pages() {
	awk -v p="$PWD/$1" '$1 == p { n = split($0, f, " "); print f[n - 1] }' "$1.cold"
}
was=$(pages link) now=$(pages callees)
[[ $was =~ ^[0-9]+$ && $now =~ ^[0-9]+$ ]] || fail "no cold start in the reports: $(cat link.cold callees.cold)"
((now < was)) || fail "the rare path reads $now pages with callees first, not fewer than $was with the link's order"
echo "the rare path's cold start: $now pages with callees first, $was in the link's order"

# refused where it cannot apply
common=(--granularity=section --map prog.map --cc -- gcc -o prog prog.o rare.o spare.o)
expect_exit 2 lld.out "$DEPORDER" --emit=lld --untraced-order=callees --trace trace "${common[@]}"
expect_grep 'untraced-order=callees needs --trace, --granularity=section and --emit=gnu-ld' lld.out.err
expect_exit 2 notrace.out "$DEPORDER" --emit=gnu-ld --untraced-order=callees --granularity=section --cc -- gcc -o prog prog.o rare.o spare.o
expect_grep 'untraced-order=callees needs --trace' notrace.out.err
