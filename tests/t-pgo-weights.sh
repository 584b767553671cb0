#!/bin/bash
# Two workloads weighted 3:1: the profile pgo-run installs holds the same
# counters as gcov-tool merge -w 3,1 of the same two runs done by hand, and
# the weights show in the counts (3 x 100000 on one branch, 100000 on the other).
# Weights that are not whole numbers go to gcov-tool in the same proportions
# as whole ones (it read 0.5 as 0, which it takes as 1, and 1.5 as 1: the
# profile silently weighed the runs 1:1).
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
pgo_ok ../out ../err --weight 3:'./prog 1' './prog 0'
profile=$(echo "$PWD"/.pgo/*/profile)
[[ -f $profile/work.gcda && -f $profile/main.gcda ]] || fail "no profile files in $profile"
expect_grep '0 coverage-mismatch warnings, 0 missing-profile' ../out

# by hand: the same instrumented build, each run into its own folder
mkdir ../hand
cp main.c work.c ../hand/
cd ../hand
gcc -O2 -fprofile-update=prefer-atomic -fprofile-generate -c main.c work.c
gcc -fprofile-generate -o prog main.o work.o
mkdir one zero
GCOV_PREFIX=$PWD/one GCOV_PREFIX_STRIP=99 ./prog 1 > /dev/null
GCOV_PREFIX=$PWD/zero GCOV_PREFIX_STRIP=99 ./prog 0 > /dev/null
gcov-tool merge -w 3,1 -o merged one zero || fail "gcov-tool merge by hand failed"
for f in work main; do
	counters "merged/$f.gcda" > "$f.hand"
	counters "$profile/$f.gcda" > "$f.tool"
	[[ -s $f.hand ]] || fail "no counters by hand for $f"
	expect_same "$f.hand" "$f.tool" "counters of $f.gcda (by hand vs pgo-run)"
done
grep -q ' 300000 100000' work.tool || { cat work.tool >&2; fail "the 3:1 weights do not show in work's counts"; }

# three workloads chain two merges: 3:1:2
cd ../p
pgo_ok ../out3 ../err3 --weight 3:'./prog 1' './prog 0' --weight 2:'./prog 0'
counters "$profile/work.gcda" > ../work.three
grep -q ' 300000 300000' ../work.three || { cat ../work.three >&2; fail "3:1:2 weights: wrong counts"; }

# a weight that is no whole number: gcov-tool reads "-w 0.5,1" as 0 and 1
# (and 1.5 as 1), so 0.5:1 goes to it as 1:2, and the counts show 1:2
pgo_ok ../out-half ../err-half --weight 0.5:'./prog 1' './prog 0'
expect_grep '^\[merge\] weights 0\.5, 1 go to gcov-tool, which takes whole numbers, as 1, 2$' ../out-half
counters "$profile/work.gcda" > ../work.half
grep -q ' 100000 200000 *$' ../work.half || { cat ../work.half >&2; fail "0.5:1 weights: wrong counts"; }
# show's calls are the weighted counts: work runs once in each workload,
# weighed 1 and 2
pgo_ok ../show-half ../err-show-half show
expect_grep '^ +3  work \(work\.c:[0-9]+\)$' ../show-half "show after 0.5:1 weights"
pgo_ok ../out-three-halves ../err-three-halves --weight 1.5:'./prog 1' './prog 0'
counters "$profile/work.gcda" > ../work.three-halves
grep -q ' 300000 200000 *$' ../work.three-halves || { cat ../work.three-halves >&2; fail "1.5:1 weights: wrong counts"; }
# what gcov-tool cannot be given is wrong usage
pgo ../out-fine ../err-fine --weight 0.0000001:'./prog 1' './prog 0'
pgo_status 2 "a weight with 7 decimals"
expect_grep '^pgo-run: --weight: weight 1e-07: not a positive number with at most 6 decimals$' ../err-fine

# weighted workloads alone are workloads enough
pgo_ok ../out4 ../err4 --weight 2:'./prog 1'
expect_grep "^\[train 1/1\] \./prog 1 \(weight 2\)$" ../out4

# a workload named as a script file in this folder, not executable, with a
# quote in its name: pgo-run workload.sh runs it with sh
printf './prog 1 > /dev/null\n' > "it's.sh"
pgo_ok ../out4 ../err4 "it's.sh"
expect_grep "^\[train 1/1\] sh './it'\\\\''s.sh' \(weight 1\)$" ../out4
counters "$profile/work.gcda" > ../work.script
grep -q ' 100000 0 *$' ../work.script || { cat ../work.script >&2; fail "the script workload's counts"; }

# pgo-run merge of a profile folder made by hand, weighted 2, into the
# profile in use (one run of ./prog 1): 1 x (1 100000 0) + 2 x (1 0 100000)
pgo_ok ../out5 ../err5 merge --weight 2:../hand/zero
expect_grep '^\[merge\] merged 1 folder into the profile in use$' ../out5
counters "$profile/work.gcda" > ../work.merged
grep -q ' 3 100000 200000 *$' ../work.merged || { cat ../work.merged >&2; fail "merge --weight 2:DIR counts"; }
pgo_ok ../status5 ../err5 status
expect_grep '^workload: weight 2: merged from \.\./hand/zero$' ../status5
