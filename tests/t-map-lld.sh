#!/bin/bash
# lld's -Map (a table: "VMA LMA Size Align Out In Symbol", hex, input
# sections as FILE:(SECTION), .eh_frame in pieces, "<internal>" for what
# lld made, no OUTPUT): deporder's closure is lld's, for a program and a
# static hello world; a pagein trace of the lld link matches its map in
# full; the order relinked with --symbol-ordering-file puts the start-up
# functions first; the map is refused for another binary.  With Debian's
# lld (ld.lld) through gcc, and with lld 22 through clang 22 when both are
# installed.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/linkmap-lib.sh"
need_pagein
need ld.lld
need_deporder

linkmap_fixture
linkmap_check lld lld --symbol-ordering-file set gcc -fuse-ld=lld
linkmap_dso lld-dso gcc -fuse-ld=lld
expect_grep '^ +VMA +LMA +Size +Align +Out +In +Symbol$' lld.map "lld's map (the fixture)"
if command -v clang-22 > /dev/null && command -v ld.lld-22 > /dev/null; then
	linkmap_check lld22 lld --symbol-ordering-file set clang-22 -fuse-ld=lld
	expect_grep '^ +VMA +LMA +Size +Align +Out +In +Symbol$' lld22.map "lld 22's map (the fixture)"
else
	echo "lld 22 through clang 22: not installed, not checked" >&2
fi
exit 0
