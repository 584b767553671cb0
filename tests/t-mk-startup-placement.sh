#!/bin/bash
# mk/startup.mk's STARTUP_PLACEMENT: cold-start makes the order with
# deporder --placement=cold-start (STARTUP_READ_AHEAD_KB passed on) into
# an order file of its own, the program works the same, make startup-check
# checks it with the same options and passes, and a check with the other
# placement (or another read-ahead) fails saying which one the output was
# ordered with; data-first (GNU ld) and -z pack-relative-relocs
# (STARTUP_RELR) reach linkopt-startup too, and so does
# STARTUP_UNTRACED_SEGMENT_KB (the untraced code in executable segments of
# their own, an order startup-check tells apart); a placement that does
# not exist is refused before anything runs, and so are a segment size
# that is not a number (make) and one that is no multiple of 4
# (linkopt-startup).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_sample
make -s startup > head.out 2>&1 || fail "make startup: $(tail -5 head.out)"
run_ok want.out ./prog
make -s startup STARTUP_PLACEMENT=cold-start STARTUP_READ_AHEAD_KB=64 > cold.out 2>&1 ||
	fail "make startup STARTUP_PLACEMENT=cold-start: $(tail -5 cold.out)"
[[ -s .linkopt/prog.gnu-ld.cold-start.order && -s .linkopt/prog.gnu-ld.order ]] ||
	fail "no order file of each placement: $(ls .linkopt)"
expect_grep '^prog: ordered for gnu-ld/cold-start at 64 KiB, start-up code pages' cold.out
expect_output want.out got.out "the output of the program ordered for a cold start" ./prog

# the order is deporder's cold-start placement for 64 KiB, not the head one
"$DEPORDER" -q --granularity=section --trace "$PWD/.linkopt/prog.trace" --map .linkopt/prog.map --emit=gnu-ld \
	--placement=cold-start --read-ahead-kb=64 --cc -- gcc -o prog startup.o libstartup.a > want.order 2> deporder.err ||
	fail "deporder --placement=cold-start: $(cat deporder.err)"
expect_same want.order .linkopt/prog.gnu-ld.cold-start.order "the cold-start order"
cmp -s .linkopt/prog.gnu-ld.order .linkopt/prog.gnu-ld.cold-start.order &&
	fail "the cold-start order is the head one: the test lost its point"
expect_grep '__linkopt_hot_start' .linkopt/prog.gnu-ld.cold-start.order "the cold-start script"
nm prog | grep -q __linkopt_hot_start || fail "prog is not linked with a script"

# startup-check: the same options pass, the other placement is told apart
status=0
make -s startup-check STARTUP_PLACEMENT=cold-start STARTUP_READ_AHEAD_KB=64 > check.out 2>&1 || status=$?
((status == 0)) || fail "startup-check with the placement it was ordered with: $(cat check.out)"
status=0
make -s startup-check > check.out 2>&1 || status=$?
((status != 0)) || fail "startup-check with the head placement passed on a cold-start order"
expect_grep "^linkopt-startup: prog: ordered for gnu-ld/cold-start at 64 KiB, not gnu-ld: run make startup$" \
	check.out "the check with the other placement"
# the same placement for another read-ahead: another order
status=0
make -s startup-check STARTUP_PLACEMENT=cold-start STARTUP_READ_AHEAD_KB=512 > check.out 2>&1 || status=$?
((status != 0)) || fail "startup-check for 512 KiB passed on the order made for 64 KiB"
expect_grep "prog: ordered for gnu-ld/cold-start at 64 KiB, not gnu-ld/cold-start at 512 KiB" check.out \
	"the check for another read-ahead"

# data-first with -z pack-relative-relocs: the relocations as RELR, the
# data segment before the code
make -s startup STARTUP_PLACEMENT=data-first STARTUP_RELR=yes > front.out 2>&1 ||
	fail "make startup STARTUP_PLACEMENT=data-first STARTUP_RELR=yes: $(tail -5 front.out)"
expect_grep '^prog: ordered for gnu-ld/data-first\+relr, start-up code pages' front.out
[[ -s .linkopt/prog.gnu-ld.data-first.order ]] || fail "no data-first order: $(ls .linkopt)"
expect_output want.out got.out "the output of the program ordered data-first" ./prog
readelf -d prog | grep -q '(RELR)' || fail "prog is not linked with -z pack-relative-relocs"
data=$(readelf -lW prog | awk '$1 == "LOAD" && $7 == "RW" { print $2; exit }')
code=$(readelf -lW prog | awk '$1 == "LOAD" && $7 == "R" && $8 == "E" { print $2; exit }')
[[ -n $data && -n $code ]] || fail "no data or code segment: $(readelf -lW prog)"
((data < code)) || fail "data-first: the data segment at $data comes after the code at $code"

# the untraced code in segments of 16 KiB: more executable segments, the
# same output, and the order is deporder's with --untraced-segment-kb=16
execs() { readelf -lW "$1" | awk '$1 == "LOAD" && / R E / { n++ } END { print n + 0 }'; }
make -s startup STARTUP_PLACEMENT=cold-start > cold.out 2>&1 || fail "make startup (cold-start): $(tail -5 cold.out)"
without=$(execs prog)
make -s startup STARTUP_PLACEMENT=cold-start STARTUP_UNTRACED_SEGMENT_KB=16 > seg.out 2>&1 ||
	fail "make startup STARTUP_UNTRACED_SEGMENT_KB=16: $(tail -5 seg.out)"
expect_grep '^prog: ordered for gnu-ld/cold-start at 128 KiB, untraced code in 16 KiB segments, start-up code pages' seg.out
expect_grep 'linkopt: the untraced code in segments of at most 16 KiB' .linkopt/prog.gnu-ld.cold-start.order
with=$(execs prog)
((with > without)) || fail "with 16 KiB segments prog has $with executable segments, without $without"
expect_output want.out got.out "the output of the program with its untraced code in segments" ./prog
status=0
make -s startup-check STARTUP_PLACEMENT=cold-start > check.out 2>&1 || status=$?
((status != 0)) || fail "startup-check without segments passed on the order with them"
expect_grep "ordered for gnu-ld/cold-start at 128 KiB, untraced code in 16 KiB segments, not gnu-ld/cold-start at 128 KiB" \
	check.out "the check without segments"
status=0
make -s startup STARTUP_PLACEMENT=cold-start STARTUP_UNTRACED_SEGMENT_KB=6 > bad.out 2>&1 || status=$?
((status != 0)) || fail "STARTUP_UNTRACED_SEGMENT_KB=6 was accepted"
expect_grep "untraced-segment-kb.*is not a multiple of 4" bad.out "STARTUP_UNTRACED_SEGMENT_KB=6"
# and where it cannot apply: the search, another linker, BOLT (usage, 2)
for more in "--placement=best --workload=./prog" "--linker=lld --placement=cold-start" "--placement=data-first --bolt"; do
	# shellcheck disable=SC2086
	expect_exit 2 where.out "$TOP/linkopt-startup/linkopt-startup" --dir="$PWD/.linkopt" --target=prog $more \
		--untraced-segment-kb=16 -- ./prog
	expect_grep 'untraced-segment-kb is for --linker=gnu-ld, without --bolt' where.out.err "--untraced-segment-kb with $more"
done

for bad in STARTUP_PLACEMENT=tail STARTUP_READ_AHEAD_KB=12x STARTUP_UNTRACED_SEGMENT_KB=1x; do
	status=0
	make -s startup "$bad" > bad.out 2>&1 || status=$?
	((status != 0)) || fail "make startup $bad was accepted"
	expect_grep "mk/startup\\.mk: ${bad%%=*} = ${bad#*=}: not" bad.out "make startup $bad"
done
exit 0
