#!/bin/bash
# pfstat --device-readahead killed with SIGKILL while the command runs:
# nothing can run in pfstat then, yet the page's promise holds: its
# watchdog ends the command, the loop device detaches when the last
# process of pfstat's mount namespace has ended, and TMPDIR holds nothing
# (the image has no name); the file is unchanged and nothing is mounted
# over it here.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need_loop

cp probe prog
sum=$(cksum < prog)
mkdir tmp
TMPDIR=$PWD/tmp "$PF" --cold prog --device-readahead=128 -- \
	sh -c 'stat -c "%Hd %Ld" prog > seen.tmp && mv seen.tmp seen && echo $$ > cmd.pid && exec sleep 60' \
	> out 2> err &
pid=$!
at_exit_undo_loop $pid
for i in $(seq 100); do
	[[ -s seen && -s cmd.pid ]] && break
	sleep 0.1
done
[[ -s seen ]] || { kill -KILL $pid; fail "the command did not start: $(cat err)"; }
read -r major minor < seen
cmd=$(cat cmd.pid)
at_exit "kill -KILL $cmd 2> /dev/null"
[[ $major == 7 ]] || { kill -KILL $pid; fail "the command read prog from device $major:$minor, not a loop device"; }
kill -KILL $pid
wait $pid 2> /dev/null
# the watchdog ends the command, and the device goes with the namespace
for i in $(seq 100); do
	process_gone "$cmd" && ! grep -q "^$TEST_WORKDIR/" /sys/block/loop$minor/loop/backing_file 2> /dev/null && break
	sleep 0.1
done
process_gone "$cmd" || fail "the command (pid $cmd) still runs 10 s after pfstat was killed"
expect_loop_gone "loop$minor"
[[ $(stat -c %d prog) == "$(stat -c %d .)" ]] || fail "prog is mounted over"
grep -q " $PWD/prog " /proc/self/mountinfo && fail "a mount over prog is left"
[[ $(cksum < prog) == "$sum" ]] || fail "prog changed"
expect_empty_dir tmp "TMPDIR after pfstat was killed"
exit 0
