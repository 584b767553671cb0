#!/bin/bash
# deporder --evaluate counts the code pages of an order in the trace's
# pages (4 KiB), whatever --page-size packed the order for: with
# --page-size=65536 it counted "pages ordered" in 64 KiB pages against
# "pages now" in 4 KiB ones.  And .fini, which the order's script moves to
# the end of the traced code, is counted where it goes, not on its old page
# at the end of .text.  For a start-up that runs whole functions, "pages
# ordered" is the code pages the trace of the program relinked with that
# order touches, at each page size; "pages now" is the traced link's.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

# 40 functions of about 3 KiB each; start-up runs 16 of them, scattered.
{
	echo '#include <stdio.h>'
	echo '#include <string.h>'
	for i in $(seq 0 39); do
		printf '__attribute__((noinline)) int f%d(int x)\n{\n\tvolatile int a[64];\n' "$i"
		printf '\tfor (int k = 0; k < 64; k++)\n\t\ta[k] = x * %d + k;\n' "$((i + 3))"
		for j in $(seq 1 90); do printf '\tx = x * %d + a[%d];\n' "$((j % 7 + 2))" "$((j % 64))"; done
		printf '\treturn x;\n}\n'
	done
	echo 'int main(int argc, char **argv)'
	echo '{'
	echo '	int s = 0;'
	for i in 37 2 21 9 30 14 5 26 33 18 11 1 24 7 39 16; do printf '\ts += f%d(argc);\n' "$i"; done
	echo '	if (argc > 1 && !strcmp(argv[1], "all"))'
	printf '\t\ts += %s;\n' "$(for i in $(seq 0 39); do printf 'f%d(s) + ' "$i"; done)0"
	echo '	printf("%d\n", s);'
	echo '	return 0;'
	echo '}'
} > prog.c
cc_obj prog.o prog.c -O2 -ffunction-sections
link=(gcc -o prog prog.o)
gcc -o prog prog.o -Wl,-Map=prog.map || fail "the default link"
run_ok want.out ./prog
"$PAGEIN" --granularity=function --out-file="$PWD/trace" -- ./prog > /dev/null 2> pagein.err ||
	fail "pagein: $(head -3 pagein.err)"
now_touched=$(relative trace "$PWD/prog" C | wc -l)

for size in 4096 16384 65536; do
	deporder_ok evaluate.out evaluate.err -q --granularity=section --evaluate --page-size=$size \
		--trace trace --map prog.map --cc -- "${link[@]}"
	read -r now ordered < <(awk 'NR == 2 { print $2, $3 }' evaluate.out)
	deporder_ok order$size.ld order.err -q --granularity=section --page-size=$size --trace trace --map prog.map \
		--emit=gnu-ld --cc -- "${link[@]}"
	gcc -o ordered$size prog.o -Wl,-T,order$size.ld || fail "the link with the order for $size"
	expect_output want.out got.out "ordered$size's output" ./ordered$size
	"$PAGEIN" --granularity=function --out-file="$PWD/ordered$size.trace" -- ./ordered$size > /dev/null 2> pagein.err ||
		fail "pagein on ordered$size: $(head -3 pagein.err)"
	touched=$(relative ordered$size.trace "$PWD/ordered$size" C | wc -l)
	echo "--page-size=$size: $now pages now ($now_touched touched), $ordered predicted ordered ($touched touched)"
	[[ $now == "$now_touched" ]] || fail "--page-size=$size: $now pages now, the trace touches $now_touched"
	[[ $ordered == "$touched" ]] ||
		fail "--page-size=$size: --evaluate predicts $ordered code pages ordered, the relink's trace touches $touched"
done
exit 0
