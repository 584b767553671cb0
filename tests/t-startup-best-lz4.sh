#!/bin/bash
# linkopt-startup --placement=best on lz4's command line program, built by
# its own Makefile through linkopt-cc, with bench/best's split a (three
# training workloads, three held out), without BOLT: the layout the cross
# chooses is measured by a real cold start, never only predicted.  Here
# the model's best three (head+relr, its cut, head) are measured, and the
# cross chooses head+seg16+relr, a kind none of them is: before, it was
# chosen with its training figures predicted ("(predicted)" on the
# chosen line, "-" in its measured columns).  Root only (the measurement
# needs a loop device).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_pagein
need make gcc
((EUID == 0)) || skip "a cold start is measured on a loop device: root only"
src=$("$TOP/scripts/fetch" lz4 2> fetch.err) || skip "needs lz4's sources: $(tail -n 1 fetch.err)"
cp -r "$src/." . && rm -f .complete || fail "cannot copy lz4"
make -C programs lz4 CC="$LINKOPT_CC --dir=$PWD/rec gcc" -j2 > build.log 2>&1 || fail "lz4's Makefile: $(tail -5 build.log)"
cat lib/*.c lib/*.h > sources.txt
head -c 200000 sources.txt > small.txt
programs/lz4 -q -f small.txt ref.lz4 || fail "lz4 does not run"
run_ok best.out "$LINKOPT_STARTUP" --dir="$PWD/rec" --target=lz4 --placement=best --no-bolt \
	--workload='./programs/lz4 -q -d -f ref.lz4 w2.out' --workload='./programs/lz4 -q -t ref.lz4' \
	--held-out='./programs/lz4 -q -9 -f small.txt w4.lz4' --held-out='./programs/lz4 --list ref.lz4' \
	--held-out='./programs/lz4 -q -l -f small.txt w6.lz4' -- ./programs/lz4 -q -f small.txt w1.lz4
cat best.out
expect_grep '^chosen: [^ ]*: [0-9.]* file pages read at a cold start of the training workloads \(measured\)' best.out \
	"the chosen layout measured"
chosen=$(sed -n 's/^chosen: \([^:]*\):.*/\1/p' best.out)
row=$(awk -v c="$chosen" '$1 == "*" && $2 == c' best.out)
# columns: *, name, code train, code held, model train, measured train,
# model held, measured held
[[ $(awk '{ print $6 }' <<< "$row") =~ ^[0-9.]+$ && $(awk '{ print $8 }' <<< "$row") =~ ^[0-9.]+$ ]] ||
	fail "the chosen $chosen has no measured figures: $row"
# what the test is for: the cross chose over the model's best, and the
# choice was measured then
expect_grep '^cross: chosen over ' best.out "the cross's choice"
grep -qF "measuring a cold start of $chosen, chosen by the cross" best.out.err ||
	fail "$chosen was not measured after the cross chose it: $(grep measuring best.out.err)"
exit 0
