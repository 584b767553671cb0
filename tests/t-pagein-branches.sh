#!/bin/bash
# pagein --branches=yes counts every taken branch (B FROM TO COUNT) and
# every run of code between two (R START END COUNT) of the recorded
# objects, exactly: a program whose control flow is known (300 calls of
# work, 100 of them calling rare) must show those counts at the addresses
# nm gives, every run must end at a branch taken as often, and a fork
# child's counts must not be the parent's.  Without the option no B or R
# line is written.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
volatile int sink;
__attribute__((noinline)) void rare(int x) { sink += x; }
__attribute__((noinline)) int work(int x)
{
	if (x % 3 == 0)
		rare(x);
	return x + 1;
}
int main(int argc, char **argv)
{
	long s = 0;
	int i;

	for (i = 0; i < 300; i++)
		s += work(i);
	if (argc > 1) {
		pid_t pid = fork();
		if (pid == 0) {
			for (i = 0; i < 7; i++)
				s += work(i);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	printf("%ld\n", s);
	return 0;
}
EOF2
gcc -O2 -fno-inline -o prog prog.c || fail "cannot build prog"
"$PAGEIN" --branches=yes --output="$PWD/t.trace" -- ./prog fork > out 2> err || fail "pagein: $(head -3 err)"
expect_grep '^45150$' out "the program's output"
base=$(base_of t.trace "$PWD/prog")
[[ -n $base ]] || fail "no object line for prog"
addr() { printf '0x%x' $(( base + 0x$(nm prog | awk -v s="$1" '$3 == s { print $1; exit }') )); }
work=$(addr work) rare=$(addr rare)
# sum KIND FIELD VALUE: the counts of KIND lines whose FIELD (2: from or
# start, 3: to or end) is VALUE
sum() { awk -v k="$1" -v f="$2" -v v="$3" '$1 == k && $f == v { n += $4 } END { print n + 0 }' "${4:-t.trace}"; }
[[ $(sum B 3 "$work") = 300 ]] || fail "branches to work: $(sum B 3 "$work"), not 300"
[[ $(sum R 2 "$work") = 300 ]] || fail "runs starting at work's entry: $(sum R 2 "$work"), not 300"
[[ $(sum B 3 "$rare") = 100 ]] || fail "branches to rare: $(sum B 3 "$rare"), not 100"
[[ $(sum R 2 "$rare") = 100 ]] || fail "runs starting at rare's entry: $(sum R 2 "$rare"), not 100"
# the call of work: one branch, taken 300 times, from inside main
call=$(awk -v w="$work" '$1 == "B" && $3 == w { print $2 }' t.trace)
[[ $(wc -w <<< "$call") = 1 ]] || fail "calls of work from several places: $call"
main_lo=$(addr main)
(( call > main_lo && call < main_lo + 0x100 )) || fail "the call of work ($call) is not in main ($main_lo)"
# after rare returns, the run goes on from the call in work (BOLT's blocks
# do not end at calls: the call's block flows on to the return point)
call_rare=$(awk -v r="$rare" '$1 == "B" && $3 == r { print $2 }' t.trace)
[[ $(wc -w <<< "$call_rare") = 1 ]] || fail "calls of rare from several places: $call_rare"
after=$(awk -v c="$call_rare" '$1 == "R" && $2 == c && $3 != c { n += $4 } END { print n + 0 }' t.trace)
[[ $after = 100 ]] || fail "runs on from the call of rare ($call_rare) after it returned: $after, not 100"
# every run of prog's code ends at a branch taken as often (the first run
# of the process, entered from ld.so, aside)
awk -v lo="$base" '
	$1 == "R" { runs[$3] += $4 }
	$1 == "B" { taken[$2] += $4 }
	END {
		for (e in runs) if (runs[e] != taken[e]) { bad++; print "run end " e ": " runs[e] " runs, " taken[e] + 0 " branches" }
		exit bad > 1
	}' t.trace > mismatch || fail "runs that do not end at a branch taken as often: $(head -3 mismatch)"
# the fork child's own file: 7 calls, not the parent's 300 again
child=(t.trace.*)
[[ -f ${child[0]} ]] || fail "the fork child wrote no trace beside t.trace"
[[ $(sum B 3 "$work" "${child[0]}") = 7 ]] || fail "the child's branches to work: $(sum B 3 "$work" "${child[0]}"), not 7"
# readers accept the records
"$TOP/pagein/pagein-report" t.trace > report 2> report.err || fail "pagein-report refuses the trace: $(head -3 report.err)"
# without --branches: none
"$PAGEIN" --output="$PWD/plain.trace" -- ./prog > /dev/null 2> err || fail "pagein: $(head -3 err)"
expect_no_grep '^[BR] ' plain.trace "a trace without --branches"
exit 0
