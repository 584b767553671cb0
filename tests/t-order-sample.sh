#!/bin/bash
# The whole pipeline on samples/startup (480 functions over 8 archive
# members, static helpers of the same name in every member, clones, -g):
# every function record of the trace maps to a loaded input section, and
# the start-up of the relinked program touches at most 3 code pages more
# than the functions it runs occupy (.init, .plt and .fini are the others).
. "$TESTDIR/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

"$TOP/samples/startup/gen" src > /dev/null || fail "gen"
"$TOP/samples/startup/build" src b > /dev/null || fail "build"
cd b
gcc -o prog-default startup.o libstartup.a -Wl,-Map=default.map || fail "default link"
./prog-default > want.out
"$PAGEIN" --granularity=function --out-file="$PWD/default.trace" -- ./prog-default > /dev/null 2>&1 || fail "pagein"
records=$(grep -c " [FC] .*(in $PWD/prog-default)$" default.trace)
"$DEPORDER" -q --granularity=section --trace default.trace --map default.map --emit=gnu-ld \
	--cc -- gcc -o prog startup.o libstartup.a > order.ld 2> report.txt || fail "deporder: $(head -3 report.txt)"
expect_grep "^deporder: default\\.trace: $records records of .*: $records matched an input section of the link \\(100\\.0%\\)" \
	report.txt "the match report"
expect_no_grep '^    [^ (]+\(\.debug' order.ld "the ordered sections of the script"
bound=$(sed -n 's/.*bytes: at least \([0-9]*\) pages of 4096.*/\1/p' report.txt)
[[ -n $bound ]] || fail "no whole-function bound in: $(cat report.txt)"
gcc -o prog-ld startup.o libstartup.a -Wl,-T,order.ld || fail "link with the script"
./prog-ld > got.out && expect_same want.out got.out "the relinked program's output"
"$PAGEIN" --out-file="$PWD/ld.trace" -- ./prog-ld > /dev/null 2>&1 || fail "pagein on the relinked program"
before=$(relative default.trace "$PWD/prog-default" C | wc -l)
after=$(relative ld.trace "$PWD/prog-ld" C | wc -l)
predicted=$("$DEPORDER" -q --granularity=section --evaluate --trace default.trace --map default.map \
	--cc -- gcc -o prog startup.o libstartup.a 2> /dev/null | awk '$1 == "default.trace" { print $3 }')
echo "start-up code pages: $before by default, $after ordered (--evaluate predicted $predicted); the functions run occupy at least $bound"
[[ -n $predicted ]] || fail "--evaluate printed no prediction"
((predicted - after <= 2 && after - predicted <= 2)) || fail "--evaluate predicted $predicted pages, pagein saw $after"
((after <= bound + 3)) || fail "the ordered start-up touches $after code pages, more than $bound + 3"
exit 0
