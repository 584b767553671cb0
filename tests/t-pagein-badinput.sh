#!/bin/bash
# pagein on awkward programs and inputs: a command that does not exist, an
# output folder that cannot take the file, a program that crashes or kills
# itself (the trace so far is written, complete lines only), a statically
# linked program, a program without symbols, a report on a foreign file.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > work.c <<'EOF2'
#include <signal.h>
#include <stdlib.h>
#include <string.h>
__attribute__((aligned(4096), noinline)) int work(void) { return 5; }
__attribute__((aligned(4096))) int main(int argc, char **argv)
{
	int r = work();
	if (argc > 1 && !strcmp(argv[1], "segv"))
		r += *(volatile int *)0;
	if (argc > 1 && !strcmp(argv[1], "term"))
		raise(SIGTERM);
	return r == 5 ? 0 : 1;
}
EOF2
gcc -O1 -o work work.c && gcc -O1 -static -o work-static work.c && cp work work-stripped && strip work-stripped ||
	fail "cannot build the fixtures"
here=$PWD

# No such command; no such output folder: a clear error, status 1, no file.
status=0; "$PAGEIN" --output="$here/t" -- ./no-such-program 2> err.txt || status=$?
((status == 1)) || fail "missing command: status $status"
expect_grep '^pagein: \./no-such-program: cannot run: ' err.txt "missing command"
status=0; "$PAGEIN" --output="$here/missing/t" -- ./work 2> err.txt || status=$?
((status == 1)) || fail "missing folder: status $status"
expect_grep "^pagein: $here/missing/t: cannot create trace file: " err.txt "missing folder"
status=0; "$PAGEIN" 2> err.txt || status=$?
((status == 2)) || fail "no arguments: status $status"
# An impossible page size is wrong usage, before anything runs; a folder
# as --output is refused before the run too.
status=0; "$PAGEIN" --page-size=3 --output="$here/p3" -- ./work 2> err.txt || status=$?
((status == 2)) || fail "--page-size=3: status $status"
[[ ! -e p3 ]] || fail "--page-size=3 ran the program"
mkdir adir
status=0; "$PAGEIN" --output="$here/adir" -- ./work 2> err.txt || status=$?
((status == 1)) || fail "--output=FOLDER: status $status"
expect_grep "adir: cannot create trace file: it is a folder" err.txt "a folder as --output"
[[ ! -e adir.tmp ]] || fail "--output=FOLDER left adir.tmp"

# A crash and a fatal signal: the program's status comes back, and the trace
# holds what ran, ending with a complete line.
for how in segv term; do
	status=0; "$PAGEIN" --output="$here/$how" -- ./work $how 2> err.txt || status=$?
	((status >= 128 || status == 1)) || fail "$how: pagein exited $status, not the program's death"
	[[ -f $how ]] || fail "$how: no trace was written"
	[[ -z $(tail -c 1 "$how") ]] || fail "$how: the last line is cut"
	relative "$how" "$here/work" C | grep -q "^$(page_of_symbol work work) work$" ||
		fail "$how: the trace lacks work's page"
done

# Static and stripped programs.
"$PAGEIN" --output="$here/static" -- ./work-static 2> err.txt || fail "static: $(head -3 err.txt)"
relative static "$here/work-static" C | grep -q "^$(page_of_symbol work-static work) work$" ||
	fail "static: the trace lacks work's page"
"$PAGEIN" --output="$here/stripped" -- ./work-stripped 2> err.txt || fail "stripped: $(head -3 err.txt)"
relative stripped "$here/work-stripped" C | grep -q "^$(page_of_symbol work work) " ||
	fail "stripped: the trace lacks the page of work"

# The report refuses what is not a pagein trace, and a missing file.
printf 'hello\n' > foreign.txt
status=0; "$TOP/pagein/pagein-report" foreign.txt > /dev/null 2> err.txt || status=$?
((status == 1)) || fail "foreign file: status $status"
expect_grep '^pagein-report: foreign\.txt: not a pagein trace' err.txt "foreign file"
status=0; "$TOP/pagein/pagein-report" nothere > /dev/null 2> err.txt || status=$?
((status == 1)) || fail "missing file: status $status"
expect_grep '^pagein-report: nothere: cannot open: No such file' err.txt "missing file"
# A trace cut in the middle of a line (a killed run) still reads.
head -c -7 static > cut
"$TOP/pagein/pagein-report" cut > /dev/null 2> err.txt || fail "a cut trace: $(head -3 err.txt)"
exit 0
