#!/bin/bash
# A command that leaves a process running (here a sleep in its process
# group) is named once on stderr: that process's time and faults are in no
# run's figures, and it may change the runs after.  pfstat still measures
# (exit 0).  Before, nothing said so.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup

at_exit 'kill $(cat sleeper 2> /dev/null) 2> /dev/null'
run_ok out "$PF" -n 3 -- sh -c 'sleep 30 > /dev/null 2>&1 & echo $! >> sleeper'
[[ $(grep -c 'left processes running' out.err) == 1 ]] || fail "not one warning: $(cat out.err)"
expect_grep "^pfstat: warning: sh -c 'sleep 30 > /dev/null 2>&1 & echo \\\$! >> sleeper' left processes running \(its process group [0-9]+\): later runs may not start alike$" \
	out.err "the warning"
expect_grep '^pfstat: sh -c .* \(3 runs\)$' out "the report"
exit 0
