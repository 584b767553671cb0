#!/bin/bash
# A source edited after training: status reports it stale (exit 1, naming
# the file); --retrain-if-stale retrains, after which the profile is fresh
# and the optimized build has no coverage mismatch; when fresh, it does not
# retrain.  A profile whose sources could not be recorded (gcov-dump
# failed) is stale.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
pgo_ok ../out ../err './prog 1'
pgo_ok ../status ../err status
expect_grep '^stale: no$' ../status
expect_grep '^objects: 2 with data, 0 without$' ../status
expect_grep "^workload: weight 1: ./prog 1$" ../status

sed -i 's/i % 3/(i \& 1) ? i % 3 : i % 7/' work.c
pgo ../status2 ../err status
pgo_status 1 "status of a stale profile"
expect_grep "changed since training: $PWD/work.c$" ../status2
expect_no_grep "changed since training: .*main.c" ../status2
expect_grep '^stale: yes$' ../status2

# the stale profile, used as it is (pgo-run build), gives coverage-mismatch
# warnings, which are counted per source and make the exit status 1
pgo ../out-mismatch ../err-mismatch build
pgo_status 1 "pgo-run build with a stale profile"
expect_grep '^\[optimized build\] [1-9][0-9]* coverage-mismatch warnings' ../out-mismatch
expect_grep '^    work.c: [1-9][0-9]* coverage-mismatch, 0 missing-profile$' ../out-mismatch
expect_no_grep 'main.c: ' ../out-mismatch
expect_grep 'sources changed since training' ../err-mismatch

pgo ../out2 ../err2 --retrain-if-stale './prog 1'
pgo_status 0 "--retrain-if-stale"
expect_grep '^\[train 1/1\]' ../out2
expect_grep '0 coverage-mismatch warnings' ../out2
pgo_ok ../status3 ../err status
expect_grep '^stale: no$' ../status3

pgo_ok ../out3 ../err3 --retrain-if-stale './prog 1'
expect_grep 'not retraining' ../out3
expect_no_grep '^\[train' ../out3
expect_grep '0 coverage-mismatch warnings' ../out3

# gcov-dump fails at training: no source is recorded, so no change can be
# seen; the profile is stale (it said "stale: no" and was never retrained)
mkdir ../broken
printf '#!/bin/sh\nexit 1\n' > ../broken/gcov-dump
chmod +x ../broken/gcov-dump
PATH=$PWD/../broken:$PATH pgo ../out4 ../err4 './prog 1'
pgo_status 0 "a cycle whose gcov-dump fails"
expect_grep 'gcov-dump failed: cannot record the sources for the stale check' ../err4
pgo ../status4 ../err status
pgo_status 1 "status of a profile with no source recorded"
expect_grep '^sources: 0 recorded$' ../status4
expect_grep '^stale: yes$' ../status4
pgo ../out5 ../err5 --retrain-if-stale './prog 1'
pgo_status 0 "--retrain-if-stale on a profile with no source recorded"
expect_grep '^\[profile\] no source recorded at training: retraining$' ../out5
expect_grep '^\[train 1/1\]' ../out5
pgo_ok ../status5 ../err status
expect_grep '^stale: no$' ../status5
