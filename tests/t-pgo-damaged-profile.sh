#!/bin/bash
# A workload that leaves a damaged profile file fails by name, with the file
# and why, and the profile in use stays exactly the last good one, with one
# workload or two: a .gcda cut short (what a run killed while libgcov writes
# it leaves), an empty one, one libgcov could not open.  Before, the damaged
# profile was installed with exit 0 ("profile of 2 workloads installed",
# the second workload's counts silently dropped) and a failed cycle's last
# line said "the profile in use is the last good one" of the damaged one.
# (A full store: tests/t-pgo-full-store.sh.)
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p

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
