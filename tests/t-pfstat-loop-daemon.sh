#!/bin/bash
# pfstat --read-ahead-kb ends what the command leaves running: a daemon
# (its own session, mapping the measured file) is ended after the run and
# named in a warning, and pfstat leaves no loop device and no mount; the
# path is the real file again, so that a later cp writes the real file.
# Before, umount said "target is busy", pfstat warned and exited 0 with the
# loop copy mounted over the program: a later cp wrote into the loop image
# and was lost when it was unmounted.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need_loop

cp probe prog
sum=$(cksum < prog)
at_exit_undo_loop
# the daemons a pfstat that failed this test left
at_exit 'xargs -r kill -KILL < daemons 2> /dev/null; sleep 0.2'
run_ok run.out "$PF" -n 2 --cold prog --read-ahead-kb=128 -- ./prog daemon prog 60 "$PWD/daemons"
expect_grep "^pfstat: warning: \./prog daemon prog 60 $PWD/daemons left process [0-9]+ \(prog\) running: ended \(SIGTERM, then SIGKILL\), so that every run starts alike and the loop device can go$" \
	run.out.err "the warning"
[[ $(grep -c 'left process' run.out.err) == 2 ]] || fail "not one daemon ended after each of 2 runs: $(cat run.out.err)"
for pid in $(sed -n 's/.* left process \([0-9]*\) .*/\1/p' run.out.err); do
	process_gone "$pid" || fail "the daemon $pid still runs"
done
expect_loop_gone "$(loop_of run.out)"
grep -q " $PWD/prog " /proc/self/mountinfo && fail "a mount over prog is left: $(grep " $PWD/prog " /proc/self/mountinfo)"
[[ $(stat -c %d prog) == "$(stat -c %d .)" ]] || fail "prog is still on another device"
[[ $(cksum < prog) == "$sum" ]] || fail "prog changed"
# a write after pfstat lands in the real file
echo new > new
cp new prog
[[ $(cat prog) == new ]] || fail "cp after pfstat did not write prog"
exit 0
