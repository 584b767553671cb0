#!/bin/bash
# The two builds in different folders (--gen-dir, --use-dir): profile names
# are relative to each build folder (-fprofile-prefix-path), so they match.
# And the output-name trap: a one-step compile and link names its profile
# files after the output (-o train gives train-work.gcda, -o release looks
# for release-work.gcda); pgo-run warns and matches them, and the optimized
# build ends with no missing-profile or coverage-mismatch warning.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

# separate compiles in two folders
sample_project a
sample_project b
pgo_ok out err --gen-dir a --use-dir b './a/prog 1'
expect_grep '\[instrumented build\] .* \(in '"$PWD"'/a\)$' out
expect_grep '\[optimized build\] .* \(in '"$PWD"'/b\)$' out
expect_grep '2 objects instrumented, 2 with profile data, 0 without' out
expect_grep '0 coverage-mismatch warnings, 0 missing-profile' out
[[ -x b/prog && -x a/prog ]] || fail "a build is missing"

# one-step compile and link, output named after the folder
for d in train release; do
	sample_project $d
	cat > $d/Makefile <<MK
CFLAGS = -O2
OUT = \$(notdir \$(CURDIR))
\$(OUT): main.c work.c
	\$(CC) \$(CFLAGS) \$(LDFLAGS) -o \$@ main.c work.c
clean:
	rm -f \$(OUT) *.gcno
MK
done
pgo_ok out2 err2 --store store2 --gen-dir train --use-dir release './train/train 1'
expect_grep "output names differ between the builds: the instrumented build wrote 'train-work.gcda', the optimized build reads 'release-work.gcda'" err2
expect_grep "'train-main.gcda'.*'release-main.gcda'" err2
expect_grep '0 coverage-mismatch warnings, 0 missing-profile' out2
[[ -x release/release ]] || fail "no optimized program"
run_ok want ./train/train 1
expect_output want got "output of the optimized program" ./release/release 1
