#!/bin/bash
# After a failed or interrupted cycle the tree holds nothing instrumented
# that looks like a normal build, and the profile in use is the last good
# one: a failing workload, an instrumented build that fails after linking,
# SIGTERM and SIGINT to pgo-run during a workload (the workload is stopped
# too, and pgo-run ends by the signal).  A cycle killed with SIGKILL cannot
# clean up: status says what it left, and the next cycle removes it.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need nm readelf perl

sample_project p
cd p
pgo_ok ../out ../err './prog 1'
snapshot() {
	{
		readlink .pgo/*/profile
		for f in .pgo/*/profile/*.gcda .pgo/*/profile/meta; do
			echo "$f $(cksum < "$f")"
		done
	} > "$1"
}
snapshot ../before

# no_instrumented WHAT: no file of the tree holds instrumentation, and the
# profile is the one of the good cycle.
no_instrumented() {
	local f
	for f in prog main.o work.o; do
		[[ -e $f ]] || continue
		nm "$f" 2> /dev/null | grep -q __gcov_ && fail "$1: $f is instrumented"
		readelf -p .GCC.command.line "$f" 2> /dev/null | grep -q fprofile-generate &&
			fail "$1: $f records -fprofile-generate"
	done
	snapshot ../after
	expect_same ../before ../after "the profile after $1"
	[[ -z $(ls -d .pgo/*/raw.* .pgo/*/p.* 2> /dev/null | grep -v "$(readlink .pgo/*/profile)") ]] ||
		fail "$1: unfinished folders left in the store"
}

pgo ../out1 ../err1 './prog 0 && exit 3'
pgo_status 1 "a failing workload"
no_instrumented "a failing workload"
expect_grep '^    removed instrumented: .*/p/prog$' ../out1

# the instrumented build links prog, then fails
cp Makefile Makefile.good
printf 'all: prog\n\tfalse\n' > Makefile.head
cat Makefile.head Makefile.good > Makefile
pgo ../out2 ../err2 './prog 0'
pgo_status 1 "a failing instrumented build"
expect_grep 'instrumented build failed: exit status 2' ../err2
no_instrumented "a failing instrumented build"
cp Makefile.good Makefile

# signal SIG: pgo-run gets SIG while its workload sleeps; it stops the
# workload and the cycle, cleans up and ends by SIG.
signal() {
	local sig=$1 pid status start
	rm -f started sleeper
	# a background job of a script ignores SIGINT: perl restores it
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' "$PGO_RUN" \
		'./prog 0 > /dev/null; echo $$ > sleeper; touch started; sleep 60' > ../out-$sig 2> ../err-$sig &
	pid=$!
	while [[ ! -e started ]]; do
		kill -0 $pid 2> /dev/null || fail "pgo-run ended before its workload started"
		sleep 0.1
	done
	# from the signal on: the instrumented build before it takes its own
	# time (a slow machine may take most of 50 s for it)
	start=$SECONDS
	kill -"$sig" $pid
	status=0
	wait $pid || status=$?
	(( status == 128 + $(kill -l "$sig") )) || fail "pgo-run after SIG$sig: exit status $status"
	(( SECONDS - start < 50 )) || fail "the workload was not stopped"
	kill -0 "$(cat sleeper)" 2> /dev/null && fail "the workload's shell still runs after SIG$sig"
	expect_grep "^\[total\] interrupted by SIG$sig; the profile in use is the last good one$" ../out-$sig
	no_instrumented "SIG$sig"
}
signal TERM
signal INT

# SIGKILL: nothing can clean up; status names what is left and fails
rm -f started sleeper
"$PGO_RUN" './prog 0 > /dev/null; echo $$ > sleeper; touch started; sleep 60' > /dev/null 2>&1 &
pid=$!
while [[ ! -e started ]]; do sleep 0.1; done
{ kill -KILL $pid && wait $pid; } 2> /dev/null
# the workload ends with pgo-run (see t-pgo-killed)
for ((t = 0; t < 100; t++)); do
	[[ $(sed 's/.*) //' "/proc/$(cat sleeper)/stat" 2> /dev/null) == [^Z]* ]] || break
	sleep 0.1
done
pgo ../status ../err status
pgo_status 1 "status after a killed cycle"
expect_grep "^    instrumented: $PWD/prog$" ../status
expect_grep '^instrumented build in the tree: 3 outputs of a cycle that was killed before it could remove them; the next pgo-run removes them, or clean and build again$' ../status
pgo_ok ../out-again ../err './prog 1'
pgo_ok ../status2 ../err status
expect_no_grep 'instrumented' ../status2
