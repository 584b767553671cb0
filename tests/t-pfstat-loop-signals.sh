#!/bin/bash
# pfstat --read-ahead-kb interrupted by SIGTERM, SIGINT or SIGHUP while
# the command runs: the signal goes on to the command, pfstat says it was
# interrupted (exit status 1) and leaves nothing: no loop device, no mount
# over the file (which is unchanged), nothing in TMPDIR.  Before, the
# commands that were to undo the set-up were refused after the signal
# (umount and losetup -d "killed by signal 15"): the loop device stayed
# bind-mounted over the program and its mount folder stayed in /tmp.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need_loop
set -m   # background jobs get SIGINT, in a process group of their own

cp probe prog
sum=$(cksum < prog)
mkdir tmp
for sig in TERM INT HUP; do
	rm -f seen.$sig
	# the command says which device it reads prog from, then waits
	TMPDIR=$PWD/tmp "$PF" --cold prog --read-ahead-kb=128 -- \
		sh -c "stat -c '%Hd %Ld' prog > seen.$sig.tmp && mv seen.$sig.tmp seen.$sig && exec sleep 60" \
		> $sig.out 2> $sig.err &
	pid=$!
	at_exit_undo_loop $pid
	for i in $(seq 100); do
		[[ -s seen.$sig ]] && break
		sleep 0.1
	done
	[[ -s seen.$sig ]] || { kill -KILL $pid; fail "SIG$sig: the command did not start: $(cat $sig.err)"; }
	read -r major minor < seen.$sig
	[[ $major == 7 ]] || { kill -KILL $pid; fail "SIG$sig: the command read prog from device $major:$minor, not a loop device"; }
	kill -$sig $pid
	status=0
	wait $pid || status=$?
	((status == 1)) || fail "SIG$sig: pfstat exited $status, not 1: $(cat $sig.err)"
	expect_grep '^pfstat: interrupted; nothing reported$' $sig.err "SIG$sig: the message"
	expect_empty $sig.out "SIG$sig: the report of an interrupted measurement"
	expect_loop_gone "loop$minor"
	[[ $(stat -c %d prog) == "$(stat -c %d .)" ]] || fail "SIG$sig: prog is still mounted over"
	grep -q " $PWD/prog " /proc/self/mountinfo && fail "SIG$sig: a mount over prog is left"
	[[ $(cksum < prog) == "$sum" ]] || fail "SIG$sig: prog changed"
	expect_empty_dir tmp "SIG$sig: TMPDIR after pfstat"
done
exit 0
