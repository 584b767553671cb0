#!/bin/bash
# mk/startup.mk in a project folder whose path holds a space: make
# startup, startup-check and startup-clean work (pagein said "/x/my:
# cannot run": the program's path was split at the blank).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make
mkdir "my project" && cd "my project" || fail "mkdir"
startup_project
gcc -o plain main.o libwork.a || fail "the plain link"
run_ok want.out ./plain
make -s startup > make.out 2>&1 || fail "make startup in a folder with a space: $(tail -5 make.out)"
expect_grep '^prog: ordered for gnu-ld, start-up code pages [0-9]+ -> [0-9]+$' make.out
grep -qxF "# command: \"$PWD/prog\"" .linkopt/prog.trace || fail "the traced command is not prog, whole: $(grep command: .linkopt/prog.trace)"
expect_output want.out got.out "the ordered program's output" ./prog
make -s startup-check > check.out 2>&1 || fail "make startup-check in a folder with a space: $(tail -5 check.out)"
expect_grep '^prog: start-up code pages [0-9]+, [0-9]+ when ordered, [0-9]+ before: ok$' check.out
make -s startup-clean > clean.out 2>&1 || fail "make startup-clean: $(cat clean.out)"
[[ -z $(ls -A .linkopt) ]] || fail "startup-clean left $(ls -A .linkopt)"
exit 0
