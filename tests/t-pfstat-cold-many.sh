#!/bin/bash
# pfstat --cold with 70 files on one device (a loop device of their own):
# the device's read counts are printed once, for the 70 files together, and
# are all of theirs: 70 one-page files read whole, 560 sectors.  Before,
# each file had a row of the device's counts (the same reads counted 70
# times), and from the 65th file on the row read 0: only 64 files' counters
# were kept.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need_loop
at_exit_undo_loop

cold=()
for i in $(seq 70); do
	head -c 4096 /dev/urandom > f$i
	cold+=(--cold f$i)
done
run_ok out "$PF" -n 2 "${cold[@]}" --device-readahead=4 -- sh -c 'cat f* > /dev/null'
[[ $(grep -c '^  read requests' out) == 1 ]] || fail "not one row of read requests for one device: $(grep -c '^  read requests' out)"
expect_grep '^device loop[0-9]+ \(read-ahead 4 KiB\): f1, f2, .*, f70$' out "the device and its files"
expect_grep '^  sectors read +560\.0 +560\.0 +560\.0$' out "the sectors of 70 pages"
[[ $(grep -Ec '^  pages read +1\.0 +1\.0 +1\.0$' out) == 70 ]] || fail "not 70 files of 1 page read: $(grep -c 'pages read' out)"
expect_loop_gone "$(loop_of out)"
exit 0
