#!/bin/bash
# gold's -Map ("Memory map"; its members under "Archive member included
# because of file (symbol)"; "** fill", "** merge strings" lines; no
# OUTPUT): deporder's closure is gold's, in gold's order, for a program
# and a static hello world; a pagein trace of the gold link matches its
# map in full; the order relinked with --section-ordering-file puts the
# start-up functions first; the map is refused for another binary.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/linkmap-lib.sh"
need_pagein
need ld.gold
need_deporder

linkmap_fixture
linkmap_check gold gold --section-ordering-file ordered gcc -fuse-ld=gold
expect_grep '^Memory map$' gold.map "gold's map (the fixture)"
linkmap_dso gold-dso gcc -fuse-ld=gold
expect_no_grep '^Linker script and memory map$' gold.map "gold's map (the fixture)"
exit 0
