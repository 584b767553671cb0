#!/bin/bash
# mk/startup.mk: one include gives a project a start-up-optimized program:
# make startup traces, orders and relinks; the program works the same and
# its start-up touches fewer code pages; lld's form as well.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_sample
make -s startup > make.out 2>&1 || fail "make startup: $(tail -5 make.out)"
[[ -x prog && -x prog.default && -s prog.gnu-ld.order ]] || fail "make startup left no prog, prog.default or prog.gnu-ld.order"
run_ok want.out ./prog.default
expect_output want.out got.out "the optimized program's output" ./prog
nm prog | grep -q __linkopt_hot_start || fail "prog is not linked with the script"
make -s startup-report > report.txt 2>&1 || fail "make startup-report: $(tail -5 report.txt)"
read -r before after <<< "$(awk '$1 == "prog.default" { print $2, $3 }' report.txt)"
[[ -n $before && -n $after ]] || fail "no line for the program in: $(cat report.txt)"
((after * 2 < before)) || fail "start-up code pages $before -> $after: not halved"
make -s startup-clean && [[ ! -e prog.gnu-ld.order && ! -e prog.trace ]] || fail "startup-clean"
make -s startup STARTUP_LINKER=lld > make.out 2>&1 || fail "make startup STARTUP_LINKER=lld: $(tail -5 make.out)"
expect_output want.out got.out "the lld-ordered program's output" ./prog
exit 0
