#!/bin/bash
# BOLT on a link made with -z pack-relative-relocs (DT_RELR), with more
# than 4 KiB of relocated function pointers before .dynamic (bolt-relr.c):
# BOLT 22 writes the moved functions' addresses 4 KiB past where the
# pointers are, over .dynamic (DT_RELRENT gone, DT_RELRSZ garbage, tags
# that are addresses), and its output dies in ld.so before main.  For each
# llvm-bolt installed, linkopt-bolt --no-check must agree with running
# BOLT's own output (the command --dry-run prints): what does not run
# correctly is refused, exit status 1, naming the cause and the fix for
# BOLT 17 and later, nothing written; what runs is written and runs.
# Skipped without llvm-bolt-22, the BOLT with the defect.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need llvm-bolt-22
LB=$TOP/linkopt-bolt/linkopt-bolt
[[ -x $LB ]] || fail "linkopt-bolt is not built"

cp "$TESTDIR/bolt-relr.c" prog.c
gcc -O2 -g -Wl,--emit-relocs -Wl,-z,pack-relative-relocs -o prog prog.c || fail "cannot build prog"
readelf -d prog | grep -q '(RELR)' || fail "prog has no DT_RELR: the linker does not pack relative relocations"
./prog 1000 > want || fail "prog does not run"
"$PAGEIN" --granularity=function --branches=yes --output="$PWD/startup.trace" -- ./prog 2000 > /dev/null 2> err ||
	fail "pagein: $(head -3 err)"

refused=()
for v in 16 22; do
	command -v llvm-bolt-$v > /dev/null || continue
	run_status lb.$v "$LB" -q --bolt llvm-bolt-$v --startup startup.trace --no-check --keep kept.$v -o out.$v ./prog
	lb_status=$RUN_STATUS
	# BOLT's own output, by the command linkopt-bolt runs, on the profile it kept
	run_ok dry.$v "$LB" -q --bolt llvm-bolt-$v --startup startup.trace --dry-run --keep kept.$v -o direct.$v ./prog
	read -ra bolt_command < dry.$v
	run_ok bolt.$v "${bolt_command[@]}"
	# (the shell's report of a crash to the log: the status says it)
	status=$({ timeout 20 ./direct.$v 1000 > direct.$v.out 2>&1; echo $?; } 2> /dev/null)
	works=no
	((status == 0)) && cmp -s want direct.$v.out && works=yes
	RUN_STATUS=$lb_status
	if [[ $works == yes ]]; then
		((RUN_STATUS == 0)) || fail "BOLT $v's output runs, yet linkopt-bolt refused it: $(head -5 lb.$v.err)"
		expect_output want run.$v "linkopt-bolt's output with BOLT $v" ./out.$v 1000
	else
		((RUN_STATUS == 1)) ||
			fail "BOLT $v's output does not run ($(status_name "$status")), yet linkopt-bolt: $(status_name "$RUN_STATUS")"
		expect_grep "BOLT $v's output would not load as the input does" lb.$v.err "BOLT $v's refusal"
		if ((v >= 17)); then
			expect_grep "relink without -z pack-relative-relocs, or use BOLT 16" lb.$v.err "BOLT $v's refusal"
		fi
		[[ ! -e out.$v ]] || fail "BOLT $v: out.$v was written"
		ls -d out.$v.tmp* > /dev/null 2>&1 && fail "BOLT $v: left behind: $(ls -d out.$v.tmp*)"
		refused+=($v)
	fi
done
# the case this test is for: if BOLT 22 ever writes a file that runs, it
# no longer shows the defect and the refusal goes untested here
[[ " ${refused[*]} " == *" 22 "* ]] ||
	echo "note: BOLT 22's output of this link runs: the refusal is tested by t-bolt-verify alone" >&2
exit 0
