#!/bin/bash
# A command pfstat runs from a terminal reads /dev/null, and the report
# says so: each run is in a process group of its own, and a run that read
# the terminal would be stopped (SIGTTIN) with pfstat waiting for it.
# Before, pfstat hung there until killed.  script(1) gives pfstat a
# terminal.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need script

printf '0 lines 0 bytes\n0 lines 0 bytes\n' > want
RUN_TIMEOUT=60 run_status tty.raw script -qec "'$PF' -n 2 --show-output -- ./probe lines" /dev/null
((RUN_STATUS == 0)) || fail "pfstat on a terminal: $(status_name "$RUN_STATUS"): $(tr -d '\r' < tty.raw | tail -3)"
tr -d '\r' < tty.raw > tty.out
head -n 2 tty.out > tty.lines
expect_same want tty.lines "2 runs on a terminal"
expect_grep '^standard input: a terminal: each run reads /dev/null instead$' tty.out "the report"
exit 0
