#!/bin/bash
# pfstat --read-ahead-kb mounts the loop copy over the file only where
# the command runs (a mount namespace of pfstat's own): while it runs, every
# other process sees the real file, and a cp into it lands in the real file
# (kept after pfstat), while the command reads the copy on the loop device;
# a write by the command fails (the copy is read-only) rather than landing
# in a copy that is thrown away; TMPDIR holds nothing, not even while it
# runs (the image has no name).  Before, the copy was mounted over the path
# for every process: a cp meanwhile wrote into the loop image and was lost.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need_loop

head -c $((16 * 4096)) /dev/urandom > data
cp data data.orig
mkdir tmp
# the command: where it reads data from, what a write to data does, then
# wait until the test has written data from outside, and read it again
cat > inside.sh <<'EOF2'
stat -c '%Hd' data > inside.dev
./probe write data > inside.write
cksum < data > inside.before
touch inside.ready
while [ ! -e outside.done ]; do sleep 0.05; done
cksum < data > inside.after
EOF2
TMPDIR=$PWD/tmp "$PF" --cold data --read-ahead-kb=128 -- sh inside.sh > run.out 2> run.err &
pid=$!
at_exit_undo_loop $pid
for i in $(seq 200); do
	[[ -e inside.ready ]] && break
	sleep 0.05
done
[[ -e inside.ready ]] || fail "the command did not start: $(cat run.err)"
[[ $(cat inside.dev) == 7 ]] || fail "the command read data from device $(cat inside.dev), not a loop device"
expect_grep '^not written: Read-only file system$' inside.write "a write by the command"
# outside: the real file, and a write to it stays in it
[[ $(stat -c %d data) == "$(stat -c %d .)" ]] || fail "data is mounted over outside pfstat"
grep -q " $PWD/data " /proc/self/mountinfo && fail "a mount over data is seen outside pfstat"
expect_empty_dir tmp "TMPDIR while pfstat runs"
head -c $((16 * 4096)) /dev/urandom > new
cp new data
touch outside.done
status=0
wait $pid || status=$?
((status == 0)) || fail "pfstat exited $status: $(cat run.err)"
# the command read the copy of the original all along; the file is the new one
[[ $(cat inside.before) == "$(cksum < data.orig)" && $(cat inside.after) == "$(cksum < data.orig)" ]] ||
	fail "the command did not read the copy of the original data"
cmp -s new data || fail "the cp made while pfstat ran was lost"
expect_empty_dir tmp "TMPDIR after pfstat"
expect_loop_gone "$(loop_of run.out)"
exit 0
