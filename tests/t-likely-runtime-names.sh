#!/bin/bash
# The counting runtime's files never replace one another: two runs of a
# program in PID namespaces (both PID 1, as a PID reused) left one
# likely-check.1, the first run's counts silently replaced.  Each process
# now takes a name of its own, likely-check.PID.SUFFIX, only when it is
# free; the report sums both runs.  The temporary file is hidden
# (.likely-check.*), so that likely-check.* never takes one left behind.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
need gcc unshare
unshare --pid --fork --mount-proc true 2> /dev/null ||
	skip "needs PID namespaces (unshare --pid --fork --mount-proc, as root)"

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <unistd.h>
#define unlikely(x) __builtin_expect(!!(x), 0)
static volatile int sink;
int main(void)
{
	for (int i = 0; i < 100; i++)
		if (unlikely(i % 10 == 0))
			sink++;
	printf("pid %ld\n", (long)getpid());
	return 0;
}
EOF2
gcc -O2 $("$LC" cflags) -o prog prog.c $("$LC" ldflags) || fail "cannot build the program"
mkdir out
echo 'pid 1' > want.out
for run in 1 2; do
	expect_output want.out "run$run.out" "run $run in a PID namespace" \
		env LIKELY_CHECK_DIR="$PWD/out" unshare --pid --fork --mount-proc ./prog
	expect_empty "run$run.out.err" "run $run: stderr"
done
ls -A out > files
expect_lines files 2 "the files of two runs as PID 1"
expect_no_grep '^\.' files "the folder after two runs (a temporary left)"
expect_grep '^likely-check\.1\.[0-9a-f]{8}$' files "the files' names"
run_ok report.out "$LC" report out/likely-check.*
expect_grep '^ +180 +20 +10\.00  main .*prog\.c:8  !!\(i % 10 == 0\) \(expect 0\)$' report.out "the report of both runs"
exit 0
