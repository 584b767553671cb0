#!/bin/bash
# The trace file's descriptor is valgrind's, out of the program's reach: a
# program that closes every descriptor above 2 (as daemons and spawners
# do) and opens a file of its own gets the number it gets without pagein,
# its file holds only what it wrote, and the trace is complete; a program
# it execs inherits no descriptor of the trace.  Before, the trace took
# descriptor 3 in the program's own range: the program's file received
# the trace, and pagein renamed an empty file into place and exited 0.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > prog.c <<'EOF2'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int fd;

	if (argc > 1) {
		/* the exec'd program: the descriptors it inherited */
		char link[64], target[4096];
		for (fd = 3; fd < 1024; fd++) {
			ssize_t n;
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0 && (target[n] = '\0', strstr(target, "t.trace")))
				printf("inherited %d: %s\n", fd, target);
		}
		return 0;
	}
	fd = open("first.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	printf("first open: %d\n", fd);
	for (fd = 3; fd < 1024; fd++)
		close(fd);
	fd = open("mine.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	printf("after closing: %d\n", fd);
	if (write(fd, "mine\n", 5) != 5)
		return 1;
	fflush(stdout);
	execl(argv[0], argv[0], "exec", (char *)0);
	return 1;
}
EOF2
gcc -O1 -o prog prog.c || fail "cannot build prog"
./prog > want.out || fail "the program fails without pagein"
mkdir out
status=0
"$PAGEIN" --trace-children=yes --output="$PWD/out/t.%p" -- ./prog > got.out 2> err || status=$?
((status == 0)) || fail "pagein exited $status: $(head -n 5 err)"
expect_same want.out got.out "the program's output"
[[ $(cat mine.txt) == mine ]] || fail "the program's file holds $(wc -c < mine.txt) bytes: $(head -c 60 mine.txt)"
ls out > files
[[ $(wc -l < files) == 1 ]] || fail "expected one trace (exec keeps the pid): $(cat files)"
f=out/$(cat files)
[[ $(tail -n 1 "$f") == '# end' ]] || fail "the trace is not complete ($(wc -c < "$f") bytes)"
"$TOP/pagein/pagein-report" "$f" > /dev/null 2> report.err || fail "pagein-report: $(cat report.err)"
expect_empty report.err "pagein-report's messages"
# without --trace-children the exec'd program runs natively: it inherits
# nothing of the trace either
rm -f mine.txt first.txt
status=0
"$PAGEIN" --output="$PWD/out/fixed.trace" -- ./prog > got.out 2> err || status=$?
((status == 1)) || fail "pagein on a program that execs: status $status"
expect_same want.out got.out "the program's output without --trace-children"
[[ $(cat mine.txt) == mine ]] || fail "the program's file holds $(wc -c < mine.txt) bytes without --trace-children"
exit 0
