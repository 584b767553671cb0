#!/bin/bash
# A short run of every fuzz harness (fuzz/, make fuzz): each one reads its
# seeds (made from real files by fuzz/seeds), the regression inputs of
# tests/fuzz-inputs/ (every crash fuzzing found) and what it makes of them
# in a few seconds, without a memory error, undefined behaviour, leak,
# broken invariant, timeout or running out of memory.  Each harness's run
# is one line of the work folder's history and of FUZZ_RECORD, which
# fuzz/table sums.  Skipped without clang's libFuzzer.
# slow test: make check leaves it out; make check-slow (tests/run -s) runs it.
. "$(dirname "$0")/lib.sh"
FUZZ_CC=${FUZZ_CC:-clang}
need "$FUZZ_CC"
cat > probe.c <<'EOF2'
int LLVMFuzzerTestOneInput(const unsigned char *data, unsigned long size)
{
	return (int)(data && size) * 0;
}
EOF2
"$FUZZ_CC" -fsanitize=fuzzer,address,undefined -o probe probe.c > probe.log 2>&1 ||
	skip "needs clang's libFuzzer ($FUZZ_CC -fsanitize=fuzzer fails: Debian's clang and libclang-rt-14-dev)"

# The harnesses are built in the tree (fuzz/build/), apart from the tools:
# a make of its own, not a part of the make that runs this test.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" FUZZ_CC="$FUZZ_CC" fuzz-build > build.log 2>&1 || {
	cat build.log >&2
	fail "make fuzz-build failed"
}

status=0
FUZZ_SECONDS=${FUZZ_SMOKE_SECONDS:-3} FUZZ_FORK=0 FUZZ_WORK=$PWD/work FUZZ_RECORD=$PWD/record.tsv "$TOP/fuzz/run" \
	> run.out 2>&1 || status=$?
cat run.out
expect_no_grep 'no seed for' run.out "fuzz/seeds"
regressions=$(find "$TESTDIR/fuzz-inputs" -type f | wc -l)
copied=$(find work/regress -type f | wc -l)
(( regressions > 0 && copied == regressions )) ||
	fail "$copied of the $regressions regression inputs of tests/fuzz-inputs were run"
if (( status != 0 )); then
	for log in work/logs/*.log; do
		grep -E -A 12 'ERROR: |runtime error|invariant broken' "$log" | head -n 40 >&2
	done
	for input in work/crashes/*/*; do
		[[ -f $input ]] || continue
		echo "input $input (first 256 bytes):" >&2
		od -A x -t x1z -N 256 "$input" >&2
	done
	fail "a fuzz harness crashed, leaked, hung or ran out of memory (exit status $status)"
fi
expect_same work/history.tsv record.tsv "FUZZ_RECORD against the work folder's history"
"$TOP/fuzz/table" record.tsv > table.out || fail "fuzz/table on the record: $(cat table.out)"
harnesses=$(sed -n 's/^ALL="\(.*\)"$/\1/p' "$TOP/fuzz/run")
for h in $harnesses; do
	runs=$(awk -F '\t' -v h="$h" '$2 == h { n++ } END { print n + 0 }' record.tsv)
	((runs == 1)) || fail "the record holds $runs runs of $h, not 1"
	expect_grep "^\\| $h \\| [^|]* \\| [1-9][0-9]* \\| 1 \\| " table.out "fuzz/table's row for $h"
done
exit 0
