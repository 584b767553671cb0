#!/bin/bash
# pgo-run killed with SIGKILL, or ended by a fatal error, leaves nothing
# running and nothing unfinished for good: the workload's shell and its own
# children (sleep &), and a build's commands, end with pgo-run; status says
# the tree holds the instrumented build (and what to do that works: make
# alone takes it for up to date); the next run removes it and the store's
# unfinished folders (raw.*, p.*), saying so; a fatal error leaves no such
# folder, and no instrumented output in the tree.  A cycle of another configuration in the same project is refused
# at once while one runs, naming the project's lock, and status says the
# instrumented build in the tree is that running cycle's.  Before, the
# workload ran on orphaned, the folders stayed, and the second cycle's
# builds ran under the first's, which failed ("wrote no notes files").
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p

# snapshot FILE: the profile in use, its files and their sums
snapshot() {
	local f
	{
		readlink .pgo/*/profile
		for f in .pgo/*/profile/*.gcda .pgo/*/profile/meta; do
			echo "$f $(cksum < "$f")"
		done
	} > "$1"
}

# unfinished: the folders of the store that no profile in use is
unfinished() {
	local d keep
	for d in .pgo/*/raw.* .pgo/*/p.*; do
		[[ -e $d ]] || continue
		keep=$(readlink -f "$(dirname "$d")/profile")
		[[ $(readlink -f "$d") != "$keep" ]] && echo "$d"
	done
	return 0
}

# wait_for FILE PID: until FILE exists, while PID runs
wait_for() {
	while [[ ! -e $1 ]]; do
		kill -0 "$2" 2> /dev/null || fail "pgo-run ended before $1 appeared"
		sleep 0.1
	done
}

# running PID: the process runs (a zombie has ended)
running() {
	local state
	[[ $1 =~ ^[0-9]+$ ]] || fail "not a process id: '$1'"
	state=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null) || return 1
	[[ -n $state && $state != Z* ]]
}

# gone WHAT PID...: each PID ends within 10 s
gone() {
	local what=$1 t p alive
	shift
	for ((t = 0; t < 100; t++)); do
		alive=
		for p; do
			running "$p" && alive="$alive $p"
		done
		[[ -z $alive ]] && return 0
		sleep 0.1
	done
	for p in $alive; do
		echo "still running: $p $(tr '\0' ' ' < "/proc/$p/cmdline")" >&2
	done
	kill -KILL $alive 2> /dev/null
	fail "$what still runs 10 s after pgo-run was killed"
}

pgo_ok ../out ../err './prog 1'
snapshot ../before

# SIGKILL during a workload whose shell has a child of its own
"$PGO_RUN" './prog 0 > /dev/null; sleep 60 & echo $! > grandchild; echo $$ > shell; touch started; wait' \
	> ../out-killed 2>&1 &
pid=$!
wait_for started $pid
kill -KILL $pid
wait $pid 2> /dev/null
gone "the workload's shell and its child" "$(cat shell)" "$(cat grandchild)"
[[ -n $(unfinished) ]] || fail "the killed run left no training folder: the test does not test"

pgo ../status ../err status
pgo_status 1 "status after a killed cycle"
expect_grep "^    instrumented: $PWD/prog$" ../status
expect_grep '^instrumented build in the tree: 3 outputs of a cycle that was killed before it could remove them; the next pgo-run removes them, or clean and build again$' ../status
make > /dev/null 2>&1
nm prog | grep -q __gcov_ || fail "make rebuilt the instrumented prog: status's advice is too strong"

pgo_ok ../out-next ../err-next './prog 1'
expect_grep "^\[store\] removed what a pgo-run killed before it could clean up left in $PWD/\.pgo/[0-9a-f]+: raw\.[A-Za-z0-9]+$" ../out-next
expect_grep "^    removed instrumented: $PWD/prog$" ../out-next
expect_grep '^\[store\] removed the 3 outputs of the instrumented build that a pgo-run killed before it could remove them left in the tree$' ../out-next
unfinished > ../left
expect_empty ../left "the store's folders after the next run"
pgo_ok ../status2 ../err status
expect_no_grep 'instrumented' ../status2

# SIGKILL during the plain build, after the merge: the build's shell and
# its child end, and the new profile's folder goes with the next run
build='make && if [ -e first-done ] && [ ! -e no-pause ]; then sleep 60 & echo $! > build-child; echo $$ > build-shell; touch building; wait; else touch first-done; fi'
"$PGO_RUN" --clean 'make clean' --build "$build" './prog 1' > ../out-build-killed 2>&1 &
pid=$!
wait_for building $pid
kill -KILL $pid
wait $pid 2> /dev/null
gone "the build's shell and its child" "$(cat build-shell)" "$(cat build-child)"
unfinished | grep -q '/p\.' || fail "the killed run left no profile folder: the test does not test"
touch no-pause
pgo ../out-build-next ../err-build-next --clean 'make clean' --build "$build" './prog 1'
expect_grep "^\[store\] removed what a pgo-run killed before it could clean up left in $PWD/\.pgo/[0-9a-f]+: p\.[A-Za-z0-9]+$" \
	../out-build-next
unfinished > ../left
expect_empty ../left "the store's folders after a run killed in the plain build and the next one"
rm -f first-done no-pause building build-child build-shell

# a fatal error after the merge: a hostile workload leaves valid data
# whose notes file is a folder, and pgo-run dies copying it
snapshot ../before
cat > hostile.sh <<'SH'
./prog 0 > /dev/null
cp "$GCOV_PREFIX/main.gcda" "$GCOV_PREFIX/evil.gcda"
mkdir evil.gcno
SH
pgo ../out-fatal ../err-fatal 'sh hostile.sh'
pgo_status 1 "a fatal error after the merge"
expect_grep '^pgo-run: .*/evil\.gcno: .*Is a directory$' ../err-fatal
unfinished > ../left
expect_empty ../left "the store's folders after a fatal error"
snapshot ../after
expect_same ../before ../after "the profile after a fatal error"
# nor does it leave its instrumented build in the tree, where make would
# take it for up to date
expect_grep "^    removed instrumented: $PWD/prog$" ../out-fatal
for f in prog main.o work.o; do
	[[ -e $f ]] && nm "$f" | grep -q __gcov_ && fail "a fatal error left $f instrumented in the tree"
done
rmdir evil.gcno

# two configurations, one project: the second is refused while the first
# trains, and status knows the instrumented build is the running cycle's
pgo_ok ../out ../err './prog 1'
rm -f started release
"$PGO_RUN" 'touch started; while [ ! -e release ]; do sleep 0.1; done; ./prog 0' > ../out-first 2>&1 &
pid=$!
wait_for started $pid
key=$(sed -n 's/^\[store\] .* (configuration \([0-9a-f]*\))$/\1/p' ../out-first)
start=$SECONDS
CFLAGS=-O1 pgo ../out-second ../err-second './prog 0'
pgo_status 1 "a second configuration while one trains"
((SECONDS - start < 20)) || fail "the second configuration was not refused at once"
expect_grep "^pgo-run: $PWD/\.pgo/lock: another pgo-run is building this project \(configuration $key\)" ../err-second
pgo ../status-running ../err status
expect_grep '^instrumented build in the tree: 3 outputs of the cycle running now$' ../status-running
touch release
status=0
wait $pid || status=$?
((status == 0)) || { cat ../out-first >&2; fail "the first cycle failed beside a refused one: exit status $status"; }
expect_grep '^\[merge\] profile installed' ../out-first
exit 0
