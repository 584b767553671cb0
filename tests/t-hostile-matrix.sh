#!/bin/bash
# The hostile-conditions matrix (tests/hostile-matrix -q): cygtrace's and
# likely-check's runtimes and pagein, each running one host program
# (tests/hostile-host.c: fork, vfork, exec, _exit, abort, signal handlers,
# threads, a dlopen/dlclose storm, 300,000 functions) with a normal,
# missing, unwritable, symbolic-link and full output folder.  Every cell:
# the host's output and exit status as without the tool, every file
# written complete or absent.  The table is printed here and copied to
# tests/hostile-matrix.log in the tree, to be quoted.
# slow test: make check leaves it out; make check-slow (tests/run -s) runs it.
. "$(dirname "$0")/lib.sh"
need gcc objdump timeout
# the unprivileged user of the "unwritable" cells reaches the programs
chmod 755 .
status=0
"$TESTDIR/hostile-matrix" -q -d "$PWD/matrix" -o "$PWD/report.txt" > matrix.out 2>&1 || status=$?
[[ -s report.txt ]] || fail "hostile-matrix wrote no report (status $status): $(tail -n 5 matrix.out)"
cat report.txt
cp report.txt "$TESTDIR/hostile-matrix.log" 2> /dev/null || true
((status == 0)) || fail "cells of the matrix failed (above; the runs are in a kept folder with KEEP_TMP=1)"
exit 0
