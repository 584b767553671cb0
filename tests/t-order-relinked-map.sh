#!/bin/bash
# The map of a link made with deporder's own GNU ld script, which names
# input sections one by one ("work.o(.text.h0)"): ld writes each such
# statement on a line of its own, and a short input section's line right
# after it ("  .text.h0  0x... 0x8 work.o") is a section of the map like
# any other, not the rest of a long name.  deporder reads the relinked
# program's map and its trace: every record matches, and --evaluate's
# cold start of the relink, from its own trace, is the count made from
# the trace and readelf's program headers (coldstart-lib.sh's file_pages).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need readelf

coldstart_program
gcc -o ordered main.o work.o -Wl,-T,order.ld -Wl,-Map=ordered.map || fail "the ordered link with a map"
"$PAGEIN" --granularity=function --output="$PWD/ordered.trace" -- ./ordered > got.out 2> pagein.err ||
	fail "pagein on the ordered program: $(head -3 pagein.err)"
# ld writes the script's statements into the map: the program's sections
# listed one by one, some of them right before their section's own line
expect_grep '^ work\.o\(\.text\.h0\)$' ordered.map "the relinked map"
grep -A1 '^ work\.o(\.rodata\.s1)$' ordered.map | tail -1 > s1.line
expect_grep '^ \.rodata\.s1 +0x[0-9a-f]+ +0x10 work\.o$' s1.line "the line after work.o(.rodata.s1)"

run_deporder out err -q --granularity=section --evaluate --read-ahead-kb=0 --trace ordered.trace --map ordered.map \
	--cc -- gcc -o ordered main.o work.o
expect_status 0 "deporder on the relinked program's map and trace"
expect_grep ': [0-9]+ records of .*/ordered: [0-9]+ matched an input section of the link \(100\.0%\), .* 0 outside every input section$' \
	err "the match report"
# the relink's cold start as its own trace says, at no read-ahead: the
# pages of the file its records touch, page 0 and the page where the data
# segment meets .bss
file_pages ordered.trace "$PWD/ordered" > pages.txt
read -r now < <(awk 'NR == 2 { print $6 }' out)
[[ $now == "$(wc -l < pages.txt)" ]] ||
	fail "--evaluate counts $now pages read for the relink's own trace, the trace touches $(wc -l < pages.txt)"
exit 0
