#!/bin/bash
# mk/startup.mk: a STARTUP_RUN changed in the Makefile is traced again by
# the next make startup (it said "(unchanged)", exit 0, and kept the order
# of the old run; startup-check then said "run make startup", which changed
# nothing).  Here the new run calls every function where the old one
# called three: startup-check fails until make startup, which makes
# another order, after which startup-check passes; a make startup with
# the same run again changes nothing; startup-clean puts the plain link
# back and leaves no record.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_functions w 40 > work.c
{
	printf '#include <stdio.h>\n#include <string.h>\n'
	for i in $(seq 0 39); do printf 'int w%d(int);\n' "$i"; done
	printf 'static int (*every[])(int) = {'
	for i in $(seq 0 39); do printf ' w%d,' "$i"; done
	printf ' };\n'
	cat <<'EOF2'
int main(int argc, char **argv)
{
	int s = w3(1) + w11(2) + w19(3);
	if (argc > 1 && !strcmp(argv[1], "all"))
		for (unsigned i = 0; i < sizeof(every) / sizeof(every[0]); i++)
			s += every[i](i);
	printf("%d\n", s);
	return 0;
}
EOF2
} > main.c
gcc -O2 -g -ffunction-sections -c work.c main.c || fail "cannot compile"
ar rcs libwork.a work.o || fail "ar"
gcc -o plain main.o libwork.a || fail "the plain link"
run_ok want.out ./plain all
cat > Makefile <<EOF2
LINKOPT = $TOP
STARTUP_PROG = prog
STARTUP_INPUTS = main.o libwork.a
STARTUP_RUN = \$(STARTUP_PROGRAM)
include \$(LINKOPT)/mk/startup.mk
EOF2

make -s startup > make.out 2>&1 || fail "make startup: $(tail -5 make.out)"
expect_grep '^prog: ordered for gnu-ld, start-up code pages [0-9]+ -> [0-9]+$' make.out
cp .linkopt/prog.gnu-ld.order first.order

sed -i 's/^STARTUP_RUN = .*/STARTUP_RUN = $(STARTUP_PROGRAM) all/' Makefile
status=0
make -s startup-check > check.out 2>&1 || status=$?
((status != 0)) || fail "startup-check passed after STARTUP_RUN changed: $(cat check.out)"
expect_grep '^linkopt-startup: prog: .*: run make startup$' check.out "startup-check after STARTUP_RUN changed"

make -s startup > again.out 2>&1 || fail "make startup after STARTUP_RUN changed: $(tail -5 again.out)"
expect_no_grep 'unchanged' again.out "make startup after STARTUP_RUN changed"
expect_grep '^prog: ordered for gnu-ld, start-up code pages [0-9]+ -> [0-9]+$' again.out
cmp -s first.order .linkopt/prog.gnu-ld.order && fail "make startup after STARTUP_RUN changed kept the old order"
expect_output want.out got.out "the program ordered for the new run" ./prog all
status=0
make -s startup-check > check.out 2>&1 || status=$?
((status == 0)) || fail "startup-check after make startup: $(cat check.out)"
expect_grep '^prog: start-up code pages [0-9]+, [0-9]+ when ordered, [0-9]+ before: ok$' check.out

make -s startup > third.out 2>&1 || fail "a third make startup: $(tail -5 third.out)"
expect_grep '\(unchanged\)$' third.out "make startup with the same run"

make -s startup-clean > clean.out 2>&1 || fail "startup-clean: $(cat clean.out)"
[[ -d .linkopt && -z $(ls -A .linkopt) ]] || fail "startup-clean left $(ls -A .linkopt 2>&1)"
nm prog | grep -q __linkopt_hot_start && fail "startup-clean left the ordered prog"
expect_output want.out got.out "the plain program put back" ./prog all
exit 0
