#!/bin/bash
# deporder never writes over a file it reads: --out or --stats-json naming
# its own --trace, its --map, the traced binary the map names (read to
# prove the traces are of it; it replaced the program with the order, exit
# 0) or --binary, under any spelling, is refused with exit status 1, the
# file as it was and nothing left beside it.  Each row: what, the output
# option, the file it names, the file that must stay as it was.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

printf 'int f(void) { return 1; }\nint main(void) { return f() - 1; }\n' > m.c
cc_obj m.o m.c -ffunction-sections
gcc -o m m.o -Wl,-Map=m.map || fail "cannot link m"
"$PAGEIN" --out-file="$PWD/m.trace" -- ./m > /dev/null 2> pagein.err || fail "pagein: $(head -3 pagein.err)"
mkdir pristine && cp -p m m.map m.trace pristine/ || fail "cannot keep copies"
ln -s m.trace trace.link

rows=(
	"--out on --trace|--out|m.trace|m.trace|"
	"--out on --trace, another spelling|--out|./trace.link|m.trace|"
	"--out on --map|--out|$PWD/m.map|m.map|"
	"--stats-json on --map|--stats-json|m.map|m.map|"
	"--out on the binary the map names|--out|m|m|"
	"--out on --binary|--out|./m|m|--binary=m"
)
for row in "${rows[@]}"; do
	IFS='|' read -r what option out keep extra <<< "$row"
	args=(-q --trace m.trace --map m.map)
	[[ -n $extra ]] && args+=("$extra")
	run_deporder got.out got.err "${args[@]}" "$option" "$out" --cc -- gcc -o m m.o
	DEP_ERR=got.err expect_status 1 "$what"
	expect_grep "is the input .* \(the same file\)" got.err "$what"
	cmp -s "$keep" "pristine/$keep" || fail "$what: $keep changed"
	left=$(ls -d "$keep".tmp* 2> /dev/null)
	[[ -z $left ]] || fail "$what: left behind: $left"
done
[[ -L trace.link ]] || fail "the link trace.link was replaced"

# and an output that is none of them is written
deporder_ok got.out got.err -q --trace m.trace --map m.map --out order.txt --cc -- gcc -o m m.o
expect_grep '^m\.o$' order.txt "the order"
exit 0
