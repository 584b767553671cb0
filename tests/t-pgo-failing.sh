#!/bin/bash
# A failing workload, a killed one (SIGKILL: the runtime never writes its
# data) and one that never runs the instrumented program: each stops the
# cycle with exit status 1 before the merge, and the profile in use stays
# exactly the previous one.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
pgo_ok ../out ../err './prog 1'
snapshot() {
	local link
	link=$(readlink .pgo/*/profile)
	{
		echo "$link"
		for f in .pgo/*/profile/*.gcda .pgo/*/profile/meta; do
			echo "$f $(cksum < "$f")"
		done
	} > "$1"
}
snapshot ../before

cat > failing.sh <<'SH'
./prog 0 > /dev/null
exit 3
SH
cat > killed.sh <<'SH'
./prog 0 > /dev/null & wait
kill -KILL $$
SH
n=0
for workload in 'sh failing.sh' 'sh killed.sh' 'true' './prog 0 && sh failing.sh'; do
	n=$((n + 1))
	pgo ../out$n ../err$n './prog 0' "$workload"
	pgo_status 1 "workload '$workload'"
	expect_no_grep '^\[merge\]' ../out$n
	expect_no_grep '^\[optimized build\]' ../out$n
	expect_grep 'the profile in use is the last good one' ../out$n
	snapshot ../after
	expect_same ../before ../after "the profile after workload '$workload'"
	[[ -z $(ls -d .pgo/*/raw.* 2> /dev/null) ]] || fail "training folders left behind"
done
expect_grep "workload 'sh failing.sh' failed: exit status 3" ../err1
expect_grep "workload 'sh killed.sh' failed: killed by signal 9" ../err2
expect_grep "workload 'true' wrote no profile data" ../err3
# a failing instrumented build: the same
cp work.c work.c.good
echo 'syntax error' >> work.c
pgo ../out-broken ../err-broken './prog 0'
pgo_status 1 "a broken instrumented build"
expect_grep 'instrumented build failed: exit status 2' ../err-broken
expect_no_grep '^\[train' ../out-broken
snapshot ../after
expect_same ../before ../after "the profile after a failed build"
mv work.c.good work.c

# the store still builds the good profile
pgo_ok ../out-build ../err-build build
expect_grep '0 coverage-mismatch warnings, 0 missing-profile' ../out-build

# a second pgo-run on the same configuration while one runs: refused
if command -v flock > /dev/null; then
	lock=$(echo "$PWD"/.pgo/*/lock)
	flock "$lock" "$PGO_RUN" './prog 0' > ../out-locked 2> ../err-locked && fail "pgo-run ran under a held lock"
	expect_grep 'another pgo-run is using this configuration' ../err-locked
	snapshot ../after
	expect_same ../before ../after "the profile after a refused run"
fi
