#!/bin/bash
# pgo-run clean, with or without --all, refuses while a cycle holds the
# store's locks: it removed the store under the running cycle, which then
# failed ("wrote no profile data") and left its instrumented objects and
# program in the tree, which status no longer listed and make took for up
# to date.  A cycle whose store is removed under it all the same (by hand)
# still removes its instrumented build from the tree.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need nm

sample_project p
cd p

# instrumented WHAT: fail if a file of the tree holds instrumentation
instrumented() {
	local f
	for f in prog main.o work.o; do
		[[ -e $f ]] || continue
		nm "$f" 2> /dev/null | grep -q __gcov_ && fail "$1: $f is instrumented"
	done
	return 0
}

rm -f started release
"$PGO_RUN" './prog 1 > /dev/null; touch started; while [ ! -e release ]; do sleep 0.1; done' \
	> ../out-cycle 2> ../err-cycle &
pid=$!
at_exit "touch '$PWD/release'; kill $pid 2> /dev/null"
while [[ ! -e started ]]; do
	kill -0 $pid 2> /dev/null || { cat ../err-cycle >&2; fail "pgo-run ended before its workload started"; }
	sleep 0.1
done
key=$(sed -n 's/^\[store\] .* (configuration \([0-9a-f]*\))$/\1/p' ../out-cycle)
[[ -n $key ]] || fail "no configuration in the cycle's output"

pgo ../out-all ../err-all clean --all
pgo_status 1 "clean --all while a cycle runs"
expect_grep "^pgo-run: $PWD/\.pgo/lock: a pgo-run is building this project: not removing the store while it runs$" ../err-all
expect_empty ../out-all "clean --all's output while a cycle runs"
pgo ../out-one ../err-one clean
pgo_status 1 "clean while a cycle of its configuration runs"
expect_grep "^pgo-run: $PWD/\.pgo/$key/lock: a pgo-run is using this configuration of the store: not removing it while it runs$" ../err-one
[[ -d .pgo/$key/logs ]] || fail "clean removed the running cycle's store"

touch release
status=0
wait $pid || status=$?
((status == 0)) || { cat ../out-cycle ../err-cycle >&2; fail "the cycle failed beside a refused clean: exit status $status"; }
expect_grep '^\[merge\] profile installed' ../out-cycle
instrumented "a cycle beside a refused clean"

# with nothing running, clean removes what it is asked to
pgo_ok ../out-clean ../err-clean clean --all
expect_grep "^removed $PWD/\.pgo$" ../out-clean
[[ ! -e .pgo ]] || fail "clean --all left the store"

# the store removed by hand under a running cycle: it fails, and the tree
# holds nothing instrumented (make would take it for up to date)
pgo ../out-gone ../err-gone './prog 1 > /dev/null; rm -rf .pgo'
pgo_status 1 "a cycle whose store was removed"
expect_grep "wrote no profile data" ../err-gone
expect_grep "^    removed instrumented: $PWD/prog$" ../out-gone
instrumented "a cycle whose store was removed"
exit 0
