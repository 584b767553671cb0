#!/bin/bash
# pfstat --cold FILE --device-readahead with FILE as the command's standard
# input (< FILE): the shell opened FILE before pfstat mounted its copy, so
# the runs read FILE itself and the copy's pages read were none: "pages
# read 0.0", "sectors read 0.0", exit 0.  Now standard input is put on
# the copy, at the offset it stood at, and the runs' reads are counted;
# FILE open for writing (<>) is refused.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need_loop
at_exit_undo_loop

# 100 lines of 4096 bytes: 100 pages
for i in $(seq 100); do printf '%04095d\n' $i; done > data
run_ok out "$PF" -n 2 --output --cold data --device-readahead=16 -- ./probe lines < data
expect_grep '^standard input: a file \(data.s copy on the loop device\): 409600 bytes from offset 0' out "what the runs read"
[[ $(grep -c '^100 lines 409600 bytes$' out) == 2 ]] || fail "not 2 runs of 100 lines: $(cat out)"
expect_grep '^  pages read +100\.0 +100\.0 +100\.0$' out "the pages of data read in"
expect_grep '^  sectors read +800\.0 +800\.0 +800\.0$' out "the sectors of data read from the loop device"
expect_loop_gone "$(loop_of out)"

# from where it stood: after a first read of 10 pages
{ dd bs=40960 count=1 of=/dev/null status=none
  "$PF" -n 2 --output --cold data --device-readahead=16 -- ./probe lines > rest.out 2> rest.err
  echo $? > rest.status; } < data
[[ $(cat rest.status) == 0 ]] || fail "after a read of 10 pages: exit $(cat rest.status): $(cat rest.err)"
[[ $(grep -c '^90 lines 368640 bytes$' rest.out) == 2 ]] || fail "not 2 runs of 90 lines: $(cat rest.out)"
expect_grep '^  pages read +90\.0 ' rest.out "the pages read from offset 40960"

expect_exit 1 rw.out "$PF" --cold data --device-readahead=16 -- ./probe lines <> data
expect_grep '^pfstat: data: standard input is this --cold file open for writing' rw.out.err "the refusal of <> data"
exit 0
