#!/bin/bash
# pfstat --cold FILE --device-readahead, the command reading FILE itself
# rather than its copy on the loop device (through a hard link): the copy's
# pages read were 0 and the device's sectors 0, exit 0, for a run that read
# 100 pages.  Now pfstat watches the file itself under the copy's mount and
# refuses the measurement, naming the file and how many pages came in.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need_loop
at_exit_undo_loop

head -c $((100 * 4096)) /dev/urandom > data
ln data hard
expect_exit 1 out "$PF" -n 2 --cold data --device-readahead=16 -- ./probe read hard
expect_grep "^pfstat: data: \./probe read hard read 100 pages of the file itself, not of its copy on the loop device" \
	out.err "the refusal"
expect_empty out "the report of a refused measurement"
# through its own path it reads the copy, measured
run_ok ok.out "$PF" -n 2 --cold data --device-readahead=16 -- ./probe read data
expect_grep '^  pages read +100\.0 +100\.0 +100\.0$' ok.out "the copy's pages read"
expect_loop_gone "$(loop_of ok.out)"
exit 0
