#!/bin/bash
# A workload that leaves a damaged profile file fails by name, with the file
# and why, and the profile in use stays exactly the last good one, with one
# workload or two: a .gcda cut short (what a run killed while libgcov writes
# it leaves), an empty one, one libgcov could not open.  Before, the damaged
# profile was installed with exit 0 ("profile of 2 workloads installed",
# the second workload's counts silently dropped) and a failed cycle's last
# line said "the profile in use is the last good one" of the damaged one.
# On a full store (a small tmpfs; needs root) the 0-byte files libgcov
# leaves are refused with its "Error writing" lines, and so is a merge that
# gcov-tool could not write (it exits 0 after "Error writing").
. "$TESTDIR/lib.sh"
. "$TOP/pgo-driver/test-fixtures.sh"

sample_project p
cd p

# snapshot STORE FILE: the profile in use, its files and their sums
snapshot() {
	local f
	{
		readlink "$1"/*/profile
		for f in "$1"/*/profile/*.gcda "$1"/*/profile/meta; do
			echo "$f $(cksum < "$f")"
		done
	} > "$2"
}

# left_behind STORE: the folders of the store that no profile in use is
left_behind() {
	local keep d
	keep=$(readlink -f "$1"/*/profile)
	for d in "$1"/*/raw.* "$1"/*/p.*; do
		[[ -e $d && $(readlink -f "$d") != "$keep" ]] && echo "$d"
	done
	return 0
}

# refused WHAT STORE OUT: the cycle stopped before anything was installed,
# the profile in use is the one snapshot took, and no unfinished folder of
# the store is left
refused() {
	pgo_status 1 "$1"
	expect_no_grep 'installed|^\[optimized build\]' "$3" "$1: stdout"
	expect_grep '^\[total\] failed; the profile in use is the last good one$' "$3" "$1: stdout"
	snapshot "$2" ../after
	expect_same ../before ../after "the profile after $1"
	left_behind "$2" > ../left
	expect_empty ../left "$1: unfinished folders left in the store"
}

pgo_ok ../out ../err './prog 1'
snapshot .pgo ../before

# the last word, libgcov's end mark, cut off: gcov-tool merges the rest
# without a word (cut in a record, it may stop with an internal error)
cat > cut.sh <<'SH'
./prog 0 > /dev/null
truncate -s -4 "$GCOV_PREFIX/work.gcda"
SH
cat > empty.sh <<'SH'
./prog 0 > /dev/null
: > "$GCOV_PREFIX/main.gcda"
SH
cat > unopenable.sh <<'SH'
mkdir "$GCOV_PREFIX/work.gcda"
./prog 0 > /dev/null
SH

pgo ../out1 ../err1 'sh cut.sh'
refused "a .gcda cut short" .pgo ../out1
expect_grep "^pgo-run: workload 'sh cut.sh' wrote a damaged profile file: work\.gcda: truncated: .*; the profile in use is unchanged$" ../err1

pgo ../out2 ../err2 './prog 1' 'sh cut.sh'
refused "the second of two workloads cut short" .pgo ../out2
expect_grep '^\[train 1/2\] 2 profile files' ../out2
expect_grep "^pgo-run: workload 'sh cut.sh' wrote a damaged profile file: work\.gcda: truncated" ../err2

pgo ../out3 ../err3 'sh empty.sh'
refused "an empty .gcda" .pgo ../out3
expect_grep "^pgo-run: workload 'sh empty.sh' wrote a damaged profile file: main\.gcda: .*empty" ../err3

pgo ../out4 ../err4 'sh unopenable.sh'
refused "a .gcda libgcov could not open" .pgo ../out4
expect_grep "^pgo-run: workload 'sh unopenable.sh': libgcov could not write all of its profile data \(log .*/train-1\.log\)" ../err4
expect_grep "^pgo-run: workload 'sh unopenable.sh': profiling:.*/raw\.[^/]*/0/work\.gcda:Cannot open$" ../err4

# the good profile still builds, and a good cycle still installs
pgo_ok ../out-build ../err-build build
expect_grep '0 coverage-mismatch warnings, 0 missing-profile' ../out-build

# a full store: the workload's files, then the merge's output
need mount umount
mkdir disk
if ! mount -t tmpfs -o size=1m tmpfs disk 2> ../mount.err; then
	echo "the full-store cases skipped: cannot mount a tmpfs: $(head -1 ../mount.err)" >&2
	exit 0
fi
trap 'umount disk' EXIT
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
