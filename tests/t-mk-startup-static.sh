#!/bin/bash
# mk/startup.mk on a project that links with $(CC) $(CFLAGS) and has
# -static in CFLAGS: the ordered program is static too (the fragment's
# link dropped CFLAGS, replaced the static program by a dynamic PIE, and
# startup-check said ok).  A link that makes another kind of file than
# the project's (STARTUP_LDFLAGS without -static) is refused, and the
# project's program is left as it was.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make readelf
[[ -e /usr/lib/x86_64-linux-gnu/libc.a ]] || skip "needs libc.a (libc6-dev)"
startup_project
cat >> Makefile <<'EOF2'
CFLAGS = -O2 -static
prog: main.o libwork.a
	$(CC) $(CFLAGS) -o $@ main.o libwork.a
EOF2
make -s prog > make.out 2>&1 || fail "make prog: $(tail -5 make.out)"
readelf -l prog | grep -q 'Requesting program interpreter' && fail "the project's prog is not static"
run_ok want.out ./prog
cp prog project-prog
make -s startup > startup.out 2>&1 || fail "make startup: $(tail -5 startup.out)"
readelf -l prog | grep -q 'Requesting program interpreter' && fail "make startup replaced the static prog by a dynamic one"
readelf -h prog | grep -q 'Type: *EXEC' || fail "the ordered prog is not a static executable: $(readelf -h prog | grep Type)"
nm prog | grep -q __linkopt_hot_start || fail "prog is not ordered"
expect_output want.out got.out "the ordered static program's output" ./prog

# the link without the project's flags: refused, prog untouched
make -s startup-clean > /dev/null 2>&1
cp project-prog prog
status=0
make -s startup STARTUP_LDFLAGS= > refused.out 2>&1 || status=$?
((status != 0)) || fail "make startup with a dynamic link of a static program succeeded"
expect_grep "^linkopt-startup: prog: .*/prog is a static program, but its recorded link makes a PIE" refused.out
cmp -s prog project-prog || fail "the refused make startup changed prog"
exit 0
