#!/bin/bash
# A fork child that calls exec (system(), popen(), posix_spawn(), vfork and
# exec) without --trace-children=yes leaves no file: what it touched before
# the exec is not kept, as pagein(1) says, and the program it runs is not
# traced.  Before, each such child left FILE.PID.tmp behind, an incomplete
# trace that nothing removed.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > prog.c <<'EOF2'
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
int main(void)
{
	char *argv[] = { "true", NULL };
	int status, total = 0;
	pid_t pid;
	FILE *p;

	total += system("true");
	p = popen("echo piped", "r");
	if (p) {
		char line[32];

		if (fgets(line, sizeof(line), p))
			total += line[0] == 'p' ? 0 : 100;
		total += pclose(p);
	}
	if (posix_spawnp(&pid, "true", NULL, NULL, argv, environ) == 0) {
		waitpid(pid, &status, 0);
		total += status;
	}
	pid = vfork();
	if (pid == 0) {
		execvp("true", argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	total += status;
	/* a forked child whose exec fails goes on and exits by itself */
	pid = fork();
	if (pid == 0) {
		execl("/nonexistent/program", "program", (char *)0);
		exit(5);
	}
	waitpid(pid, &status, 0);
	printf("%d %d\n", total, WEXITSTATUS(status));
	return 0;
}
EOF2
gcc -O1 -o prog prog.c || fail "cannot build prog"
mkdir out
status=0
"$PAGEIN" --output="$PWD/out/t.trace" -- ./prog > got.out 2> err || status=$?
((status == 0)) || fail "pagein exited $status: $(head -n 5 err)"
[[ $(cat got.out) == "0 5" ]] || fail "the program's output: $(cat got.out)"
ls out > files
expect_no_grep '\.tmp$' files "the files of the folder"
for f in out/*; do
	[[ $(tail -n 1 "$f") == '# end' ]] || fail "$f is not complete"
	"$TOP/pagein/pagein-report" "$f" > /dev/null 2> report.err || fail "pagein-report $f: $(cat report.err)"
	expect_empty report.err "pagein-report's messages on $f"
done
grep -qx t.trace files || fail "no trace of the program itself"
exit 0
