#!/bin/bash
# mk/startup.mk: one include gives a project a start-up-optimized program:
# make startup traces, orders and relinks (through linkopt-startup, its
# records in .linkopt/); the program works the same and its start-up
# touches fewer code pages; a second make startup changes nothing;
# startup-clean puts the plain link back; lld's form as well.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_sample
gcc -o plain startup.o libstartup.a || fail "the plain link"
run_ok want.out ./plain
make -s startup > make.out 2>&1 || fail "make startup: $(tail -5 make.out)"
[[ -x prog && -x .linkopt/prog.default && -s .linkopt/prog.gnu-ld.order ]] ||
	fail "make startup left no prog, .linkopt/prog.default or .linkopt/prog.gnu-ld.order: $(ls -a . .linkopt)"
expect_grep '^prog: ordered for gnu-ld, start-up code pages [0-9]+ -> [0-9]+$' make.out
expect_output want.out got.out "the optimized program's output" ./prog
nm prog | grep -q __linkopt_hot_start || fail "prog is not linked with the script"
stamp=$(stat -c %.9Y prog)
make -s startup > again.out 2>&1 || fail "make startup again: $(tail -5 again.out)"
expect_grep '^prog: ordered for gnu-ld, start-up code pages [0-9]+ -> [0-9]+ \(unchanged\)$' again.out
[[ $(stat -c %.9Y prog) == "$stamp" ]] || fail "a second make startup touched prog"
make -s startup-report > report.txt 2>&1 || fail "make startup-report: $(tail -5 report.txt)"
read -r before after <<< "$(awk '$1 == "prog" { print $2, $3 }' report.txt)"
[[ -n $before && -n $after ]] || fail "no line for the program in: $(cat report.txt)"
((after * 2 < before)) || fail "start-up code pages $before -> $after: not halved"
make -s startup-clean > clean.out 2>&1 || fail "startup-clean: $(cat clean.out)"
[[ -z $(ls -A .linkopt) ]] || fail "startup-clean left $(ls -A .linkopt)"
nm prog | grep -q __linkopt_hot_start && fail "startup-clean left the ordered prog"
cmp -s plain prog || fail "startup-clean did not put the plain link back"
make -s startup STARTUP_LINKER=lld > make.out 2>&1 || fail "make startup STARTUP_LINKER=lld: $(tail -5 make.out)"
expect_output want.out got.out "the lld-ordered program's output" ./prog
exit 0
