#!/bin/bash
# mk/startup.mk: make startup-report traces the relinked program at the
# same granularity as the default one, so that the traces compare
# functions as well as pages (it said "functions 670 -> 0"), and prints
# the code and data pages before and after.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_project
make -s startup-report > report.txt 2>&1 || fail "make startup-report: $(tail -5 report.txt)"
expect_grep '^output +code pages +ordered +data pages +ordered$' report.txt "the report's head"
expect_grep '^prog +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' report.txt "the report's line"
"$TOP/pagein/pagein-report" .linkopt/prog.trace .linkopt/prog.after.trace > pages.txt ||
	fail "pagein-report of the two traces"
line=$(grep -E 'functions [0-9]+ -> [0-9]+' pages.txt) || fail "no functions line in: $(cat pages.txt)"
[[ $line =~ functions\ ([0-9]+)\ -\>\ ([0-9]+) ]] || fail "cannot read '$line'"
before=${BASH_REMATCH[1]} after=${BASH_REMATCH[2]}
((before > 0 && after > 0)) || fail "functions $before -> $after: the after-trace is not function-granular"
exit 0
