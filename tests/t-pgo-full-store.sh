#!/bin/bash
# A full store (a small tmpfs; needs root): the 0-byte files libgcov
# leaves when the disk fills are refused with its "Error writing" lines,
# and so is a merge that gcov-tool could not write (it exits 0 after
# "Error writing"); the profile in use stays the last good one.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p

# a full store: the workload's files, then the merge's output
need mount umount
mkdir disk
mount -t tmpfs -o size=1m tmpfs disk 2> ../mount.err ||
	skip "cannot mount a 1 MiB tmpfs for a full store: $(head -1 ../mount.err)"
at_exit 'umount disk'
pgo_ok ../out-disk ../err-disk --store disk/s './prog 1'
snapshot disk/s ../before

# the log gets a page before the disk fills, so libgcov's lines reach it
cat > full.sh <<'SH'
echo filling the store
head -c 10M /dev/zero > "$GCOV_PREFIX/filler" 2> /dev/null
./prog 0 > /dev/null
SH
pgo ../out5 ../err5 --store disk/s 'sh full.sh'
refused "a full store" disk/s ../out5
expect_grep "^pgo-run: workload 'sh full.sh' wrote a damaged profile file: [a-z]*\.gcda: .*empty \(and 1 more of the 2 files\)" ../err5
expect_grep "^pgo-run: workload 'sh full.sh': libgcov profiling error:.*/raw\.[^/]*/0/[a-z]*\.gcda:Error writing$" ../err5

# the second workload fills the store after its run: gcov-tool's merge
cat > full-after.sh <<'SH'
./prog 0 > /dev/null
head -c 10M /dev/zero > "$GCOV_PREFIX/../filler" 2> /dev/null
exit 0
SH
pgo ../out6 ../err6 --store disk/s './prog 1' 'sh full-after.sh'
refused "a merge into a full store" disk/s ../out6
expect_grep '^\[train 2/2\] 2 profile files' ../out6
expect_grep "^pgo-run: the merged profile is damaged \(log .*/logs/merge\.log\): [a-z]*\.gcda: .*empty" ../err6
exit 0
