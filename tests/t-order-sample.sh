#!/bin/bash
# The whole pipeline on samples/startup (480 functions over 8 archive
# members, static helpers of the same name in every member, clones, -g):
# every function record of the trace maps to a loaded input section, and
# the start-up of the relinked program touches at most 3 code pages more
# than the functions it runs occupy (.init, .plt and .fini are the others).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

"$TOP/samples/startup/gen" src > /dev/null || fail "gen"
"$TOP/samples/startup/build" src b > /dev/null || fail "build"
cd b
gcc -o prog-default startup.o libstartup.a -Wl,-Map=default.map || fail "default link"
run_ok want.out ./prog-default
"$PAGEIN" --granularity=function --output="$PWD/default.trace" -- ./prog-default > /dev/null 2>&1 || fail "pagein"
records=$(grep -c " [FCO] .*(in $PWD/prog-default)$" default.trace)
# stderr's copy relocation lives in .dynbss, which the linker made: outside.
inside=$((records - $(grep -c " O .*stderr@.*(in $PWD/prog-default)$" default.trace)))
"$DEPORDER" -q --granularity=section --trace default.trace --map default.map --emit=gnu-ld \
	--cc -- gcc -o prog startup.o libstartup.a > order.ld 2> report.txt || fail "deporder: $(head -3 report.txt)"
expect_grep "^deporder: default\\.trace: $records records of .*: $inside matched an input section of the link \\(100\\.0%\\)" \
	report.txt "the match report"
expect_no_grep '^    [^ (]+\(\.debug' order.ld "the ordered sections of the script"
bound=$(sed -n 's/.*bytes: at least \([0-9]*\) pages of 4096.*/\1/p' report.txt)
[[ -n $bound ]] || fail "no whole-function bound in: $(cat report.txt)"
gcc -o prog-ld startup.o libstartup.a -Wl,-T,order.ld || fail "link with the script"
expect_output want.out got.out "the relinked program's output" ./prog-ld
"$PAGEIN" --output="$PWD/ld.trace" -- ./prog-ld > /dev/null 2>&1 || fail "pagein on the relinked program"
before=$(relative default.trace "$PWD/prog-default" C | wc -l)
after=$(relative ld.trace "$PWD/prog-ld" C | wc -l)
predicted=$("$DEPORDER" -q --granularity=section --evaluate --trace default.trace --map default.map \
	--cc -- gcc -o prog startup.o libstartup.a 2> /dev/null | awk '$1 == "default.trace" { print $3 }')
echo "start-up code pages: $before by default, $after ordered (--evaluate predicted $predicted); the functions run occupy at least $bound"
[[ -n $predicted ]] || fail "--evaluate printed no prediction"
((predicted - after <= 2 && after - predicted <= 2)) || fail "--evaluate predicted $predicted pages, pagein saw $after"
((after <= bound + 3)) || fail "the ordered start-up touches $after code pages, more than $bound + 3"

# Two workloads: what both touch first; with --weight, the sections only the
# heavier one touches before those only the lighter one touches.
"$PAGEIN" --granularity=function --output="$PWD/alt.trace" -- ./prog-default --alt > /dev/null 2>&1 || fail "pagein --alt"
hot() { # TRACE-OPTIONS...: the traced sections, in order
	"$DEPORDER" -q --granularity=section --page-size=0 "$@" --map default.map \
		--cc -- gcc -o prog startup.o libstartup.a > hot.all 2> hot.err || fail "deporder $*"
	head -n "$(sed -n 's/.*the traced code: \([0-9]*\) sections.*/\1/p' hot.err)" hot.all
}
hot --trace default.trace > d.list
hot --trace alt.trace > a.list
# A section only the alternative start-up touches, and one only the default
# start-up touches; where each order puts them.
only_alt=$(grep -vxF -f d.list a.list | head -1)
only_default=$(grep -vxF -f a.list d.list | head -1)
[[ -n $only_alt && -n $only_default ]] || fail "the two start-ups touch the same sections"
position() { grep -nxF "$1" "$2" | head -1 | cut -d: -f1; }
"$DEPORDER" -q --granularity=section --page-size=0 --trace alt.trace --trace default.trace --map default.map \
	--cc -- gcc -o prog startup.o libstartup.a > equal.list 2> /dev/null || fail "deporder with two traces"
"$DEPORDER" -q --granularity=section --page-size=0 --weight 3 --trace alt.trace --trace default.trace --map default.map \
	--cc -- gcc -o prog startup.o libstartup.a > weighted.list 2> /dev/null || fail "deporder with --weight 3"
(( $(position "$only_default" equal.list) < $(position "$only_alt" equal.list) )) ||
	fail "equal weights: '$only_alt' (the first trace's) before '$only_default' (the second's)"
(( $(position "$only_alt" weighted.list) < $(position "$only_default" weighted.list) )) ||
	fail "--weight 3 on the first trace: '$only_default' still before '$only_alt'"
exit 0
