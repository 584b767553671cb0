#!/bin/bash
# pfstat --read-ahead-kb: a run during which the loop device's read-ahead
# changed (here the command sets it; on a machine, udev or another tool
# may) is refused, exit 1, naming the device and both figures: the pages
# it read are not those of the read-ahead the report would name.  The
# device's queue settings are its own, and a loop device keeps them.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need_loop

head -c $((64 * 4096)) /dev/urandom > data
cat > change.sh <<'EOF2'
queue=/sys/dev/block/$(stat -c '%Hd:%Ld' data)/queue
cat "$queue/read_ahead_kb" > seen.kb
echo 256 > "$queue/read_ahead_kb"
cat data > /dev/null
EOF2
expect_exit 1 run.out "$PF" --cold data --read-ahead-kb=128 -- sh change.sh
[[ $(cat seen.kb) == 128 ]] || fail "the command saw a read-ahead of $(cat seen.kb) KiB, not 128"
expect_grep '^pfstat: loop[0-9]*: its read-ahead changed during the run, from 128 KiB to 256: ' run.out.err \
	"the refusal"
# and a run that changes nothing is measured
run_ok ok.out "$PF" --cold data --read-ahead-kb=128 -- cat data
expect_grep '^device loop[0-9]+ \(read-ahead 128 KiB\): data$' ok.out "the report of a run that changed nothing"
exit 0
