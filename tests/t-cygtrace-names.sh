#!/bin/bash
# cygtrace's traces never replace one another: two runs of a program in
# PID namespaces (both PID 1, as a PID reused) left one cygtrace.1, the
# first trace silently replaced.  Each process now takes a name of its
# own, cygtrace.PID.SUFFIX, only when it is free, and keeps it for its
# later writes (the trace at exit replaces the one written at a fork); a
# fork child takes its own.  The temporary file is hidden (.cygtrace.*),
# so that cygtrace.* never takes one left behind.
. "$(dirname "$0")/lib.sh"
need gcc unshare
CYG=$TOP/cygtrace
[[ -f $CYG/libcygtrace.so && -x $CYG/cygtrace-resolve ]] || fail "cygtrace is not built (run make)"
unshare --pid --fork --mount-proc true 2> /dev/null ||
	skip "needs PID namespaces (unshare --pid --fork --mount-proc, as root)"

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int first(int x) { return x + 1; }
__attribute__((noinline)) int child(int x) { return x * 3; }
int main(int argc, char **argv)
{
	int s = first(argc);

	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		pid_t pid = fork();

		if (pid == 0)
			exit(child(s) == 6 ? 0 : 1);
		waitpid(pid, NULL, 0);
	}
	printf("pid %ld\n", (long)getpid());
	return 0;
}
EOF2
gcc -O1 -finstrument-functions -o prog prog.c -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG" ||
	fail "cannot build the program"
mkdir out
echo 'pid 1' > want.out
for run in 1 2; do
	expect_output want.out "run$run.out" "run $run in a PID namespace" \
		env CYGTRACE_DIR="$PWD/out" unshare --pid --fork --mount-proc ./prog
	expect_empty "run$run.out.err" "run $run: stderr"
done
ls -A out > files
expect_lines files 2 "the traces of two runs as PID 1"
expect_grep '^cygtrace\.1\.[0-9a-f]{8}$' files "the traces' names"
for f in out/cygtrace.*; do
	expect_grep '^# pid: 1$' "$f" "$f"
	expect_grep '^# end$' "$f" "$f"
	run_ok "$f.resolved" "$CYG/cygtrace-resolve" -q "$f"
	expect_grep ' main$' "$f.resolved" "the functions of $f"
done

# a fork: the parent's trace at the fork is replaced by its trace at exit,
# the child writes its own, under its own name
rm -rf out && mkdir out
CYGTRACE_DIR=$PWD/out ./prog fork > fork.out 2> fork.err || fail "the forking run failed"
expect_empty fork.err "the forking run: stderr"
parent=$(sed -n 's/^pid //p' fork.out)
ls -A out > files
expect_lines files 2 "the traces of a run that forks once"
grep -l "^# pid: $parent\$" out/cygtrace.* > parent.files
expect_lines parent.files 1 "the parent's traces"
expect_grep '^# reason: exit$' "$(cat parent.files)" "the parent's trace"
grep -L "^# pid: $parent\$" out/cygtrace.* > child.files
expect_lines child.files 1 "the child's traces"
run_ok child.resolved "$CYG/cygtrace-resolve" -q "$(cat child.files)"
expect_grep ' child$' child.resolved "the functions of the child's trace"
exit 0
