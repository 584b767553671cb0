#!/bin/bash
# A fork child whose trace file cannot be made (its folder went away, a
# full disk) goes on as it would without pagein, untraced, and pagein says
# so; the parent's run and status are its own.  Before, valgrind ended the
# child at once with status 1, before it ran a line of its own.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	int status;
	pid_t pid;

	/* the trace's folder goes away while the program runs */
	if (rename("out", "moved") != 0)
		return 9;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		puts("child ran");
		exit(4);
	}
	waitpid(pid, &status, 0);
	printf("child: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 3;
}
EOF2
gcc -O1 -o prog prog.c || fail "cannot build prog"
mkdir out
expect_exit 3 want.out ./prog
rm -rf moved && mkdir out
status=0
"$PAGEIN" --output="$PWD/out/t.trace" -- ./prog > got.out 2> err || status=$?
((status == 3)) || fail "pagein exited $status, the program 3: $(head -n 5 err)"
expect_same want.out got.out "the program's output"
expect_grep "^(==[0-9]+== )?pagein: .*/out/t\.trace\.[0-9]+\.tmp\.[0-9]+: cannot create the trace file.*goes on untraced" err \
	"the child's message"
# The parent's trace cannot be renamed into a folder that is gone: said.
expect_grep "^pagein: .*/out/t\.trace: no trace written: " err "pagein's word on the parent's trace"
exit 0
