#!/bin/bash
# The watchdog pgo-run forks (to end a killed run's commands) starts as a
# copy of pgo-run holding its descriptors, the store's locks among them,
# until it closes them.  pgo-run waits for it to have closed them before
# it goes on: a run that ended before its watchdog got to run left the
# lock taken, and the next pgo-run refused ("another pgo-run is building
# this project") though none was running; seen in CI on a loaded machine
# (t-cli: pgo-run build printed nothing the second time).  strace delays
# the watchdog's close_range by a second, as a busy machine would.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need strace

# strace needs ptrace, which a container may deny
strace -o /dev/null true 2> ptrace.err || skip "strace cannot trace here: $(head -1 ptrace.err)"

# pgo-run build with no profile: it takes the locks, forks its watchdog and
# ends (exit 1, "no profile to build with") at once.  -D: strace goes on
# tracing the watchdog after pgo-run ends, as the shell goes on.
timeout -k 5 120 strace -D -f -e trace=close_range -e inject=close_range:delay_enter=1000000 -o strace.txt \
	"$PGO_RUN" build > first.out 2> first.err < /dev/null || true
expect_grep '^\[store\] ' first.out "the first run's store line"
expect_grep 'no profile to build with' first.err "the first run's message"
pgo second.out second.err build
expect_no_grep 'another pgo-run' second.err "the run after one whose watchdog was slow"
expect_grep '^\[store\] ' second.out "the second run's store line"
expect_grep 'no profile to build with' second.err "the second run's message"
# the delay took place (or the test shows nothing)
for ((i = 0; i < 50; i++)); do
	grep -q 'DELAYED' strace.txt && break
	sleep 0.1
done
expect_grep 'close_range\(.*DELAYED' strace.txt "strace's delay of the watchdog's close_range"

# a watchdog that dies before it has closed our descriptors (killed here at
# its close_range): pgo-run says its commands run unwatched, and goes on
timeout -k 5 120 strace -f -e trace=close_range -e inject=close_range:signal=KILL -o killed.txt \
	"$PGO_RUN" build > third.out 2> third.err < /dev/null || true
expect_grep 'close_range\(.*killed by SIGKILL|\+\+\+ killed by SIGKILL' killed.txt "the watchdog killed by strace"
expect_grep '^pgo-run: warning: the watchdog ended before it started: ' third.err "the run whose watchdog died"
expect_grep '^\[store\] ' third.out "the store line of the run whose watchdog died"
expect_grep 'no profile to build with' third.err "that run's message"
