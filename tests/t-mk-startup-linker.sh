#!/bin/bash
# mk/startup.mk keys the order on the linker: switching STARTUP_LINKER
# without a clean makes that linker's own form instead of handing it the
# other linker's file (GNU ld read lld's list: "prog.order:3: syntax error");
# lld links without warnings about names it orders; a linker that cannot
# link with an order (not installed, or Debian 12's mold) is refused
# before anything runs.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make ld.lld ld.gold

startup_project
gcc -o want main.o libwork.a || fail "the plain program"
run_ok want.out ./want
for linker in lld gnu-ld gold lld; do
	make -s startup STARTUP_LINKER=$linker > make.out 2>&1 || fail "make startup STARTUP_LINKER=$linker: $(tail -5 make.out)"
	expect_output want.out got.out "the $linker-ordered program's output" ./prog
	[[ -s .linkopt/prog.$linker.order ]] || fail "no .linkopt/prog.$linker.order"
	# The program's static error() shares its name with libc's, which lld
	# warns about while it orders error() all the same.
	expect_no_grep 'unable to order' make.out "make startup STARTUP_LINKER=$linker"
done
expect_grep '^SECTIONS$' .linkopt/prog.gnu-ld.order "GNU ld's script"
expect_no_grep '^SECTIONS$' .linkopt/prog.lld.order "lld's list"
status=0
make -s startup STARTUP_LINKER=bfd > make.out 2>&1 || status=$?
((status != 0)) || fail "STARTUP_LINKER=bfd was accepted"
expect_grep 'STARTUP_LINKER' make.out "an unknown linker"
# a linker that cannot link with an order is refused before anything runs:
# not installed, or Debian 12's mold 1.10 (no --symbol-ordering-file)
cp prog before
status=0
make -s startup STARTUP_LINKER=mold > make.out 2>&1 || status=$?
if ! command -v ld.mold > /dev/null; then
	((status != 0)) || fail "STARTUP_LINKER=mold was accepted without ld.mold"
	expect_grep '^linkopt-startup: --linker=mold: cannot run ld.mold --help: is mold installed\?' make.out \
		"make startup without mold"
elif ! ld.mold --help | grep -q -- --symbol-ordering-file; then
	((status != 0)) || fail "STARTUP_LINKER=mold was accepted with a mold that cannot order"
	expect_grep '^linkopt-startup: --linker=mold: ld.mold \(mold [0-9.]+.*\) has no --symbol-ordering-file option' make.out \
		"make startup with a mold that cannot order"
else
	((status == 0)) || fail "make startup STARTUP_LINKER=mold: $(tail -5 make.out)"
fi
if ((status != 0)); then
	cmp -s before prog || fail "the refused make startup changed prog"
	[[ -e .linkopt/prog.mold.order ]] && fail "the refused make startup made an order"
fi
make -s startup-clean && [[ -z $(ls .linkopt/prog.*.order 2> /dev/null) ]] || fail "startup-clean left an order"
exit 0
