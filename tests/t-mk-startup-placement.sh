#!/bin/bash
# mk/startup.mk's STARTUP_PLACEMENT: cold-start makes the order with
# deporder --placement=cold-start (STARTUP_READ_AHEAD_KB passed on) into
# an order file of its own, the program works the same, make startup-check
# checks it with the same options and passes, and a check with the other
# placement fails saying which one the output was ordered with; a
# placement that does not exist is refused before anything runs.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_sample
make -s startup > head.out 2>&1 || fail "make startup: $(tail -5 head.out)"
./prog > want.out || fail "the head-ordered program fails"
make -s startup STARTUP_PLACEMENT=cold-start STARTUP_READ_AHEAD_KB=64 > cold.out 2>&1 ||
	fail "make startup STARTUP_PLACEMENT=cold-start: $(tail -5 cold.out)"
[[ -s prog.gnu-ld.cold-start.order && -s prog.gnu-ld.order ]] || fail "no order file of each placement: $(ls)"
expect_output want.out got.out "the output of the program ordered for a cold start" ./prog

# the order is deporder's cold-start placement for 64 KiB, not the head one
"$DEPORDER" -q --granularity=section --trace prog.trace --map prog.map --emit=gnu-ld --placement=cold-start \
	--read-ahead-kb=64 --cc -- gcc -o prog startup.o libstartup.a > want.order 2> deporder.err ||
	fail "deporder --placement=cold-start: $(cat deporder.err)"
expect_same want.order prog.gnu-ld.cold-start.order "the cold-start order"
cmp -s prog.gnu-ld.order prog.gnu-ld.cold-start.order && fail "the cold-start order is the head one: the test lost its point"
expect_grep '__linkopt_hot_start' prog.gnu-ld.cold-start.order "the cold-start script"
nm prog | grep -q __linkopt_hot_start || fail "prog is not linked with a script"

# startup-check: the same options pass, the other placement is told apart
status=0
make -s startup-check STARTUP_PLACEMENT=cold-start STARTUP_READ_AHEAD_KB=64 > check.out 2>&1 || status=$?
((status == 0)) || fail "startup-check with the placement it was ordered with: $(cat check.out)"
status=0
make -s startup-check > check.out 2>&1 || status=$?
((status != 0)) || fail "startup-check with the head placement passed on a cold-start order"
expect_grep "prog: ordered for gnu-ld/cold-start, not gnu-ld: make startup-check STARTUP_LINKER=gnu-ld STARTUP_PLACEMENT=cold-start, or make startup" \
	check.out "the check with the other placement"
# the same placement for another read-ahead makes another order: stale
status=0
make -s startup-check STARTUP_PLACEMENT=cold-start STARTUP_READ_AHEAD_KB=512 > check.out 2>&1 || status=$?
if ! cmp -s want.order <("$DEPORDER" -q --granularity=section --trace prog.trace --map prog.map --emit=gnu-ld \
	--placement=cold-start --read-ahead-kb=512 --cc -- gcc -o prog startup.o libstartup.a 2> /dev/null); then
	((status != 0)) || fail "startup-check for 512 KiB passed on the order made for 64 KiB"
	expect_grep 'stale: the order made now' check.out "the check for another read-ahead"
fi

for bad in STARTUP_PLACEMENT=tail STARTUP_READ_AHEAD_KB=12x; do
	status=0
	make -s startup "$bad" > bad.out 2>&1 || status=$?
	((status != 0)) || fail "make startup $bad was accepted"
	expect_grep "mk/startup\\.mk: ${bad%%=*} = ${bad#*=}: not" bad.out "make startup $bad"
done
exit 0
