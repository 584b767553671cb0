#!/bin/bash
# mk/startup.mk runs the start-up command with $(STARTUP_PROGRAM) standing
# for the program, its absolute path (the plain link is traced in place,
# then the ordered one).  No other word of STARTUP_RUN is rewritten (it turned
# "./prog ./prog_start.arg" into "./prog.default ./prog.default_start.arg"),
# and a STARTUP_RUN that does not name the program (the old "./prog", or
# "prog", which ran whatever PATH held) is refused before anything runs.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

STARTUP_RUN_LINE='$(STARTUP_PROGRAM) ./prog_start.arg' startup_project
make -s startup-report > report.txt 2>&1 || fail "make startup-report: $(tail -5 report.txt)"
expect_grep "^# command: $PWD/prog \\./prog_start\\.arg\$" .linkopt/prog.trace "the plain run's command"
expect_grep "^# command: $PWD/prog \\./prog_start\\.arg\$" .linkopt/prog.after.trace "the relinked run's command"
run_ok got.out ./prog ./prog_start.arg
expect_grep ' \./prog_start\.arg$' got.out "the relinked program's output"

# The old form and a bare name on PATH: refused, nothing traced.
mkdir decoy && printf '#!/bin/sh\necho decoy\n' > decoy/prog && chmod +x decoy/prog
for line in './prog --version' 'prog'; do
	make -s startup-clean
	STARTUP_RUN_LINE=$line startup_project
	status=0
	PATH=$PWD/decoy:$PATH make -s startup > make.out 2>&1 || status=$?
	((status != 0)) || fail "STARTUP_RUN = $line: make startup succeeded"
	expect_grep 'STARTUP_RUN does not name the program: .*\$\(STARTUP_PROGRAM\)' make.out "STARTUP_RUN = $line"
	[[ ! -e .linkopt/prog.trace ]] || fail "STARTUP_RUN = $line: a trace was written"
done
exit 0
