#!/bin/bash
# pagein on a full disk (a 64 KiB tmpfs): the incomplete trace never
# replaces the complete one from an earlier run, no FILE.tmp is left, and
# the exit status says the trace failed: 1 for a program that exited 0,
# the program's own status when it failed.  Before, the trace was replaced
# by one cut in the middle of a line and pagein exited 0.  pagein-report
# warns about a trace without its '# end' line.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need mount umount

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
int main(int argc, char **argv)
{
	printf("%d\n", work(argc));
	return argc > 1 ? atoi(argv[1]) : 0;
}
EOF2
gcc -O1 -o prog prog.c || fail "cannot build prog"

mkdir disk
mount -t tmpfs -o size=64k tmpfs disk 2> mount.err ||
	skip "cannot mount a 64 KiB tmpfs for a full disk: $(head -1 mount.err)"
at_exit 'umount "$TEST_WORKDIR/disk"'

# A complete trace, then the disk filled but for a few KiB.
"$PAGEIN" --output="$PWD/disk/t.trace" -- ./prog > /dev/null 2> err || fail "the first run: $(head -3 err)"
cp disk/t.trace complete.trace
head -c 40960 /dev/zero > disk/fill 2> /dev/null
(($(df -k --output=avail disk | tail -1) <= 8)) || fail "the tmpfs is not full: $(df -k disk | tail -1)"

# status|out-file|program's status|what
while IFS='|' read -r want out code what; do
	status=0
	"$PAGEIN" --granularity=function --output="$PWD/disk/$out" -- ./prog $code > /dev/null 2> err || status=$?
	((status == want)) || fail "$what: pagein exited $status, expected $want; stderr: $(cat err)"
	expect_grep "^(==[0-9]+== )?pagein: .*disk/[^ ]*\.tmp\.[0-9]+: write failed: No space left on device; the incomplete trace is removed" \
		err "$what: the tool's message"
	expect_grep "^pagein: .*disk/[^ ]*: no trace written: \./prog: exit status $code$" err "$what: pagein's message"
	cmp -s disk/t.trace complete.trace || fail "$what: the complete trace of the earlier run was replaced"
	leftover=$(cd disk && ls | grep -vxF -e t.trace -e fill)
	[[ -z $leftover ]] || fail "$what: left in the folder: $leftover"
done <<EOF2
1|t.trace|0|a fixed --output, the program exits 0
3|t.trace|3|a fixed --output, the program exits 3
1|t.%p|0|--output with %p
EOF2

# The readers: a trace without its last line is read with a warning.
head -n -1 complete.trace > cut.trace
"$TOP/pagein/pagein-report" cut.trace > /dev/null 2> err || fail "pagein-report of a trace without '# end': $(head -3 err)"
expect_grep "^pagein-report: warning: cut\.trace: the trace is incomplete \(no '# end' line\)" err \
	"pagein-report of a trace without '# end'"
"$TOP/pagein/pagein-report" complete.trace > /dev/null 2> err || fail "pagein-report: $(head -3 err)"
expect_empty err "pagein-report's stderr for a complete trace"
exit 0
