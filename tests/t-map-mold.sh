#!/bin/bash
# mold's -Map (a table: "VMA Size Align Out In Symbol", sizes in decimal,
# input paths written normalized: /usr/lib/gcc/x86_64-linux-gnu/12/../../../
# x86_64-linux-gnu/Scrt1.o as /usr/lib/x86_64-linux-gnu/Scrt1.o, the
# sections mold makes (.plt, .got, merged strings) with no input):
# deporder's closure is mold's, for a program and a static hello world; a
# pagein trace of the mold link matches its map in full; the order
# relinked with --symbol-ordering-file puts the start-up functions first;
# the map is refused for another binary.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/linkmap-lib.sh"
need_pagein
need mold
need_deporder

linkmap_fixture
# Debian 12's mold (1.10) has no --symbol-ordering-file: no relink with an order
opt=-
mold --help | grep -q -- --symbol-ordering-file && opt=--symbol-ordering-file
linkmap_check mold mold "$opt" set gcc -fuse-ld=mold
linkmap_dso mold-dso gcc -fuse-ld=mold
expect_grep '^ +VMA +Size +Align +Out +In +Symbol$' mold.map "mold's map (the fixture)"
exit 0
