#!/bin/bash
# pagein-report says n/a, not 0, for the functions and data objects of a
# trace by page, which records none whatever ran (before and after traces
# of one program, one by page and one by function, printed "functions 0 ->
# 227"): the trace's header says its granularity ("# granularity: page" or
# "function"), JSON carries it, a trace without the line (written before
# it) still reads, and a line with another value is refused.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
REPORT=$TOP/pagein/pagein-report

printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > p.c
gcc -O1 -g -o p p.c || fail "cannot build p"
"$PAGEIN" --out-file="$PWD/page.trace" -- ./p > /dev/null 2> pagein.err || fail "pagein: $(head -3 pagein.err)"
"$PAGEIN" --granularity=function --out-file="$PWD/function.trace" -- ./p > /dev/null 2> pagein.err ||
	fail "pagein --granularity=function: $(head -3 pagein.err)"
expect_grep '^# granularity: page$' page.trace "the trace by page"
expect_grep '^# granularity: function$' function.trace "the trace by function"

run_ok both.out "$REPORT" page.trace function.trace
expect_grep '^  heap .*, functions n/a -> [1-9][0-9]* \(n/a: a trace by page, which records no function\)$' both.out \
	"the side by side of a trace by page and one by function"
run_ok page.out "$REPORT" page.trace
expect_grep 'functions first executed n/a, data objects first used n/a \(a trace by page' page.out "a trace by page"
run_ok function.out "$REPORT" function.trace
expect_grep 'functions first executed [1-9][0-9]*, data objects first used [0-9]+$' function.out "a trace by function"
run_ok page.json "$REPORT" --format=json page.trace
expect_grep '"granularity": "page"' page.json "JSON of a trace by page"
run_ok function.json "$REPORT" --format=json function.trace
expect_grep '"granularity": "function"' function.json "JSON of a trace by function"

# a trace written before the line: read, its granularity unknown
grep -v '^# granularity: ' page.trace > old.trace
run_ok old.out "$REPORT" old.trace
expect_grep 'functions first executed 0, ' old.out "a trace without the line"
run_ok old.json "$REPORT" --format=json old.trace
expect_grep '"granularity": null' old.json "JSON of a trace without the line"

sed 's/^# granularity: page$/# granularity: block/' page.trace > bad.trace
expect_exit 1 bad.out "$REPORT" bad.trace
expect_grep 'the granularity is neither page nor function' bad.out.err "a granularity that does not exist"
exit 0
