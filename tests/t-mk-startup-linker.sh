#!/bin/bash
# mk/startup.mk keys the order on the linker: switching STARTUP_LINKER
# without a clean makes that linker's own form instead of handing it the
# other linker's file (GNU ld read lld's list: "prog.order:3: syntax error");
# lld links without warnings about names it orders.
. "$TESTDIR/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make ld.lld ld.gold

startup_project
gcc -o want main.o libwork.a && ./want > want.out || fail "the plain program"
for linker in lld gnu-ld gold lld; do
	make -s startup STARTUP_LINKER=$linker > make.out 2>&1 || fail "make startup STARTUP_LINKER=$linker: $(tail -5 make.out)"
	./prog > got.out && expect_same want.out got.out "the $linker-ordered program's output"
	[[ -s prog.$linker.order ]] || fail "no prog.$linker.order"
	# The program's static error() shares its name with libc's, which lld
	# warns about while it orders error() all the same.
	expect_no_grep 'unable to order' make.out "make startup STARTUP_LINKER=$linker"
done
expect_grep '^SECTIONS$' prog.gnu-ld.order "GNU ld's script"
expect_no_grep '^SECTIONS$' prog.lld.order "lld's list"
nm prog.default > /dev/null || fail "prog.default"
status=0
make -s startup STARTUP_LINKER=bfd > make.out 2>&1 || status=$?
((status != 0)) || fail "STARTUP_LINKER=bfd was accepted"
expect_grep 'STARTUP_LINKER' make.out "an unknown linker"
make -s startup-clean && [[ -z $(ls prog.*.order 2> /dev/null) ]] || fail "startup-clean left an order"
exit 0
