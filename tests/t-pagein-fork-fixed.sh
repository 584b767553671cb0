#!/bin/bash
# pagein --output=FIXED (no %p) on a program that forks: the named file
# is the parent's trace, complete; each fork child writes beside it
# (FIXED.PID).  Before, every child reopened FIXED.tmp and the file ended
# as a child's trace (or began with NUL bytes after system()).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > forker.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) int parent_work(int x) { return x * 7; }
int main(void)
{
	int i, r = 0;

	for (i = 0; i < 3; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	r = system("true");
	r += parent_work(getpid() & 1);
	printf("%d\n", r >= 0);
	return 0;
}
EOF2
gcc -O1 -o forker forker.c || fail "cannot build forker"
"$PAGEIN" --granularity=function --output="$PWD/t.trace" -- ./forker > out 2> err || fail "pagein: $(head -3 err)"
[[ -f t.trace ]] || fail "no trace at the named file"
head -c 10 t.trace | grep -q '^# pagein' || fail "the named file does not start with the pagein header: $(head -c 40 t.trace | od -c | head -2)"
pid=$(sed -n 's/^# pid: //p' t.trace)
children=(t.trace.*)
((${#children[@]} >= 3)) || fail "the fork children wrote ${#children[@]} files beside the named one, not at least 3"
for c in "${children[@]}"; do
	[[ $(sed -n 's/^# pid: //p' "$c") != "$pid" ]] || fail "$c has the parent's pid"
done
grep -q ' parent_work ' t.trace || fail "the named file lacks the parent's own function: it is not the parent's trace"
exit 0
