#!/bin/bash
# pgo-run with clang (CC=clang-22): the same cycle and guarantees with
# LLVM's IR instrumentation.  lz4's own Makefile (programs/, objects in
# ../lib) trains on compressing and decompressing a real file; the raw
# profiles are merged by llvm-profdata, and the optimized objects carry
# the profile (.text.hot./.text.unlikely. sections, which no plain clang
# build makes); the program still round-trips.  Then, on a small project:
# a stale profile (a loop edited) and a foreign one (lz4's profile in its
# place) are refused with exit status 1, a damaged raw profile changes
# nothing, and CC and CXX of two families are refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/clang-lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need readelf cmp
need_clang
profdata=$("$CLANG" -print-prog-name=llvm-profdata)
command -v "$profdata" > /dev/null ||
	skip "needs llvm-profdata of $CLANG (Debian: llvm-${CLANG#clang-})"
echo 'int main(void){return 0;}' > probe.c
"$CLANG" -fprofile-generate probe.c -o probe 2> probe.err ||
	skip "$CLANG cannot link -fprofile-generate (Debian: libclang-rt-${CLANG#clang-}-dev): $(tail -n 1 probe.err)"
export CC=$CLANG
unset CXX

# hot_sections OBJECT: how many sections clang placed by profile
hot_sections() {
	readelf -SW "$1" | grep -cE ' \.text\.(hot|unlikely)\.' || true
}

src=$("$TOP/scripts/fetch" lz4 2> fetch.err) || skip "needs lz4's sources: $(tail -n 1 fetch.err)"
cp -r "$src" lz4 && rm -f lz4/.complete || fail "cannot copy lz4"
head -c 3000000 "$(command -v gdb || command -v perl)" > big || fail "no input file"
cd lz4/programs
pgo_ok ../../out ../../err --build 'make lz4' --clean 'make clean' \
	'./lz4 -f -q ../../big ../../big.lz4' './lz4 -d -f -q ../../big.lz4 ../../big.out'
expect_grep '^\[instrumented build\] added to every compiler command: -fprofile-generate=' ../../out
expect_grep '^\[merge\] [0-9]+ objects instrumented, [1-9][0-9]* with profile data' ../../out
expect_grep '^    no data: \.\./lib/lz4hc\.o$' ../../out "lz4hc is not run by the workloads"
expect_grep '^\[optimized build\] 0 coverage-mismatch warnings, 0 missing-profile warnings' ../../out
expect_grep '^\[options\] optimized build: the [0-9]+ outputs it shares with the plain build have its options' \
	../../out
store=$(echo .pgo/*/profile)
[[ -s $store/default.profdata ]] || fail "no merged profile in $store"
"$profdata" show "$store/default.profdata" > ../../profdata-show || fail "llvm-profdata cannot read the profile"
# the profile was used: clang sorted the optimized objects' functions by it
hot=$(hot_sections ../lib/lz4.o)
(( hot > 0 )) || fail "the optimized ../lib/lz4.o has no .text.hot./.text.unlikely. section: the profile was not used"
run_ok ../../rt1 ./lz4 -f -q ../../big ../../again.lz4
run_ok ../../rt2 ./lz4 -d -f -q ../../again.lz4 ../../again
cmp ../../big ../../again || fail "the optimized lz4 does not round-trip"
pgo_ok ../../status ../../err status --build 'make lz4'
expect_grep '^stale: no$' ../../status
expect_grep '^objects: [1-9][0-9]* with data, [1-9][0-9]* without$' ../../status
pgo_ok ../../show ../../err show --build 'make lz4' --top 3
expect_grep '^ +[1-9][0-9]*  LZ4_' ../../show "show names lz4's hot functions"
# a plain clang build has no such section
make -s clean > /dev/null && make -s lz4 > /dev/null 2>&1 || fail "plain make lz4 failed"
[[ $(hot_sections ../lib/lz4.o) == 0 ]] || fail "a plain clang build made .text.hot. sections: the check above proves nothing"
cd ../..

# a stale profile: the loop of work.c changed after training
sample_project p
cd p
pgo_ok ../out-p ../err-p './prog 1'
expect_grep '^\[optimized build\] 0 coverage-mismatch warnings' ../out-p
profile=$(echo .pgo/*/profile)
cp work.c work.c.orig
sed -i 's/i % 3/(i \& 1) ? i % 3 : i % 7/' work.c
pgo ../status-p ../err status
pgo_status 1 "status of a stale clang profile"
expect_grep "changed since training: $PWD/work.c$" ../status-p
pgo ../out-stale ../err-stale build
pgo_status 1 "pgo-run build with a stale clang profile"
expect_grep '^    work.c: [1-9][0-9]* coverage-mismatch, 0 missing-profile$' ../out-stale
expect_grep 'the profile does not match the sources' ../err-stale
cp work.c.orig work.c

# pgo-run merge adds the raw profile of runs made outside pgo-run: the
# counts grow, the workloads say where they came from
"$CLANG" -O2 -fprofile-generate main.c work.c -o inst || fail "cannot build an instrumented prog by hand"
LLVM_PROFILE_FILE=$PWD/../extra/%m.profraw ./inst 1 > /dev/null || fail "the instrumented prog failed"
before=$("$profdata" show "$profile/default.profdata" | sed -n 's/^Total count: //p')
pgo_ok ../out-merge ../err-merge merge ../extra
expect_grep '^\[merge\] merged 1 folder into the profile in use$' ../out-merge
profile=$(echo .pgo/*/profile)
after=$("$profdata" show "$profile/default.profdata" | sed -n 's/^Total count: //p')
(( after > before )) || fail "pgo-run merge did not add the counts ($before, then $after)"
pgo_ok ../status-merge ../err status
expect_grep "^workload: weight 1: merged from ../extra$" ../status-merge
sum=$(md5sum < "$profile/default.profdata")

# a damaged raw profile (cut short after the run): refused, nothing changes
pgo ../out-cut ../err-cut './prog 1 && for f in "${LLVM_PROFILE_FILE%/*}"/*.profraw; do head -c 64 "$f" > "$f.cut" && mv "$f.cut" "$f"; done'
pgo_status 1 "a workload whose raw profile is cut short"
expect_grep "wrote a damaged profile file: .*\.profraw: " ../err-cut
[[ $(md5sum < "$profile/default.profdata") == "$sum" ]] || fail "a damaged raw profile changed the profile in use"

# a foreign profile (lz4's) in place of this program's: every function is
# missing from it, and the build says so
cp ../lz4/programs/$store/default.profdata "$profile/default.profdata"
pgo ../out-foreign ../err-foreign build
pgo_status 1 "pgo-run build with another program's profile"
expect_grep '^\[optimized build\] [0-9]+ coverage-mismatch warnings?, [1-9][0-9]* missing-profile warnings?' ../out-foreign
expect_grep 'found no profile data: the instrumented build did not make them' ../err-foreign

# CC and CXX of two families: one profile cannot serve both
CXX=g++ pgo ../out-mixed ../err-mixed status
pgo_status 1 "CC=clang with CXX=g++"
expect_grep 'two compiler families' ../err-mixed
