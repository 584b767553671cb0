#!/bin/bash
# A project without make, driven through --build and --clean: the flags
# arrive in CFLAGS and LDFLAGS.  It builds two programs and the workload
# runs one: the other's object is listed as having no data, and its
# missing-profile warning in the optimized build is expected, not an error.
# Then show, status, merge (runs made outside pgo-run), clean and usage.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
rm Makefile
cat > tool.c <<'C'
int main(void) { return 0; }
C
cat > build.sh <<'SH'
#!/bin/sh
set -e
cc -O2 $CFLAGS -c main.c
cc -O2 $CFLAGS -c work.c
cc -O2 $CFLAGS -c tool.c
cc $LDFLAGS -o prog main.o work.o
cc $LDFLAGS -o tool tool.o
SH
chmod +x build.sh
pgo_ok ../out ../err --build ./build.sh --clean 'rm -f prog tool *.o *.gcno' './prog 1'
expect_grep '^\[instrumented build\] \./build\.sh' ../out
expect_grep '3 objects instrumented, 2 with profile data, 1 without:' ../out
expect_grep '^    no data: tool$' ../out
expect_grep '0 coverage-mismatch warnings, 1 missing-profile warning \(1 for objects with no data by design\)' ../out
expect_grep 'pgo-run itself' ../out
pgo_ok ../status ../err status --build ./build.sh
expect_grep '^objects: 2 with data, 1 without$' ../status
expect_grep '^    no data: tool$' ../status
expect_grep '^  build: \./build\.sh$' ../status
# another build command is another configuration, with no profile
pgo ../status2 ../err status --build 'sh build.sh'
pgo_status 1 "status of a configuration never trained"
expect_grep '^profile: none$' ../status2

pgo_ok ../show ../err show --build ./build.sh --top 2
expect_grep '^ +1  main \(main.c:4\)$' ../show
expect_grep '^ +1  work \(work.c:1\)$' ../show

# an instrumented program run outside pgo-run writes into the store's gen/
# folder; pgo-run merge adds that to the profile: main has run twice
cd ..
sample_project a
sample_project b
pgo_ok out-ab err --gen-dir a --use-dir b './a/prog 1'
run_ok a.out ./a/prog 0
ls .pgo/*/gen/*.gcda > /dev/null 2>&1 || fail "the run outside pgo-run left no data in gen/"
pgo_ok merge err merge
expect_grep '^\[merge\] merged 1 folder into the profile in use$' merge
pgo_ok show2 err show
expect_grep '^ +2  main \(main.c:4\)$' show2
pgo_ok status err status
expect_grep '^workload: weight 1: merged from .*/gen$' status
pgo merge2 err2 merge
pgo_status 1 "merge with nothing new"
expect_grep 'no profile data to merge' err2

# clean: one configuration, or the whole store; never a folder that is
# not a store
pgo_ok clean err clean
ls .pgo | grep -qE '^[0-9a-f]{16}$' && fail "clean left the configuration"
pgo clean2 err3 clean --all --store a
pgo_status 1 "clean of a folder that is not a store"
expect_grep 'not a pgo-run store' err3
[[ -f a/main.c ]] || fail "clean removed a project file"
pgo_ok clean3 err clean --all
[[ ! -e .pgo ]] || fail "clean --all left the store"

# usage
for args in '' '--weight x:a' '--weight 0:a' '--runs 0 a' '--bogus a' 'status a' '--bench x a' '--store'; do
	pgo u.out u.err $args
	pgo_status 2 "pgo-run $args"
	expect_grep '^pgo-run: ' u.err
done
pgo_ok help err --help
expect_grep '^usage: pgo-run' help
