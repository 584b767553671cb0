#!/bin/bash
# mk/startup.mk: make startup-report traces the relinked program at the
# same granularity as the default one, so that the report compares
# functions as well as pages (it said "functions 670 -> 0").
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_project
make -s startup-report > report.txt 2>&1 || fail "make startup-report: $(tail -5 report.txt)"
line=$(grep -E 'functions [0-9]+ -> [0-9]+' report.txt) || fail "no functions line in: $(cat report.txt)"
[[ $line =~ functions\ ([0-9]+)\ -\>\ ([0-9]+) ]] || fail "cannot read '$line'"
before=${BASH_REMATCH[1]} after=${BASH_REMATCH[2]}
((before > 0 && after > 0)) || fail "functions $before -> $after: the after-trace is not function-granular"
awk '$3 == "F" { found = 1 } END { exit !found }' prog.after.trace || fail "prog.after.trace has no function records"
exit 0
