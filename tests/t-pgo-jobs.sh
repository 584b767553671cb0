#!/bin/bash
# Nothing a command of the cycle starts outlives it, and no command reads
# pgo-run's stdin.  A workload's background job (which ignores SIGINT)
# ran on after SIGINT to pgo-run, and after a normal run; now it is ended
# either way, and a workload that leaves one, or a daemon (setsid, its
# parent gone), fails: the profile data of what it left is missing.  A
# build that leaves one is warned about, a benchmark run that leaves one
# fails (it would run beside the next runs).  Every command's stdin is
# /dev/null: the first workload used to eat what pgo-run's stdin held.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need perl setsid

sample_project p
cd p
# what a failing check leaves: the processes of the bg files, if still in
# this test's folder
at_exit 'for f in "$TEST_WORKDIR"/p/bg*; do
	p=$(cat "$f" 2> /dev/null) && [[ $(readlink "/proc/$p/cwd") == "$TEST_WORKDIR"* ]] && kill -KILL "$p"
done'

# running PID: the process runs (a zombie has ended)
running() {
	local state
	[[ $1 =~ ^[0-9]+$ ]] || fail "not a process id: '$1'"
	state=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null) || return 1
	[[ -n $state && $state != Z* ]]
}

# gone WHAT FILE...: the process whose id each FILE holds has ended
gone() {
	local what=$1 f
	shift
	for f; do
		[[ -s $f ]] || fail "$what: no process id in $f: the test does not test"
		if running "$(cat "$f")"; then
			local line
			line=$(tr '\0' ' ' < "/proc/$(cat "$f")/cmdline")
			kill -KILL "$(cat "$f")"
			fail "$what: process $(cat "$f") ($line) still runs"
		fi
	done
	return 0
}

# a background job the workload does not wait for
pgo ../out1 ../err1 './prog 1 > /dev/null; sleep 60 & echo $! > bg1'
pgo_status 1 "a workload that leaves a background job"
expect_grep "^pgo-run: workload '.*' left 1 process running when it ended: [0-9]+ \(sleep\); pgo-run ended it, so its profile data is missing: end it in the workload \(wait for a background job\); the profile in use is unchanged$" ../err1
gone "a background job after a normal run" bg1

# a daemon: it leaves its session and its parent ends
pgo ../out2 ../err2 './prog 1 > /dev/null; setsid -f sh -c "echo \$\$ > bg2; exec sleep 60"; while [ ! -s bg2 ]; do sleep 0.1; done'
pgo_status 1 "a workload that starts a daemon"
expect_grep "^pgo-run: workload '.*' left 1 process running when it ended: [0-9]+ \(sleep\)" ../err2
gone "a daemon a workload started" bg2

# a background job waited for is no leftover
pgo_ok ../out3 ../err3 './prog 1 > /dev/null & ./prog 0 > /dev/null; wait'
expect_grep '^\[train 1/1\] 2 profile files' ../out3

# SIGINT to pgo-run while the workload's background job runs: the job
# ignores SIGINT (sh runs it so), and still ends with the cycle
rm -f started
perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' "$PGO_RUN" \
	'./prog 0 > /dev/null; sleep 60 & echo $! > bg4; touch started; sleep 60' > ../out4 2> ../err4 &
pid=$!
while [[ ! -e started ]]; do
	kill -0 $pid 2> /dev/null || fail "pgo-run ended before its workload started"
	sleep 0.1
done
kill -INT $pid
status=0
wait $pid || status=$?
((status == 130)) || fail "pgo-run after SIGINT: exit status $status"
expect_grep '^\[total\] interrupted by SIGINT' ../out4
gone "a background job after SIGINT" bg4

# a build that leaves a process: a warning, and it is ended
pgo_ok ../out5 ../err5 --clean 'make clean' --build 'make && { sleep 60 & echo $! > bg5; }' './prog 1'
expect_grep "^pgo-run: warning: instrumented build: the build command left 1 process running when it ended: [0-9]+ \(sleep\); pgo-run ended it$" ../err5
gone "a process a build left" bg5

# a benchmark run that leaves a process fails
pgo ../out6 ../err6 --bench '"$PGO_BIN" 1 > /dev/null; sleep 60 & echo $! > bg6' --bench-program prog --runs 1 './prog 1'
pgo_status 1 "a benchmark run that leaves a process"
expect_grep "^pgo-run: benchmark '.*' with the plain program \(PGO_BIN=.*\) left 1 process running when it ended: [0-9]+ \(sleep\); pgo-run ended it: it would have run beside the next runs$" ../err6
gone "a process a benchmark run left" bg6

# stdin: no command reads what pgo-run's stdin holds
printf 'one\ntwo\nthree\n' > ../input
status=0
timeout 120 "$PGO_RUN" --clean 'make clean' --build 'cat >> ../read-by-builds; make' \
	--bench 'cat >> ../read-by-bench; "$PGO_BIN" 1 > /dev/null' --bench-program prog --runs 1 \
	'cat >> ../read-by-workloads; ./prog 1 > /dev/null' 'cat >> ../read-by-workloads; ./prog 0 > /dev/null' \
	< ../input > ../out7 2> ../err7 || status=$?
((status == 0)) || { cat ../err7 >&2; fail "a cycle with stdin: exit status $status"; }
for f in builds bench workloads; do
	expect_empty "../read-by-$f" "what the $f read from pgo-run's stdin"
done
exit 0
