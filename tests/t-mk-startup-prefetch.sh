#!/bin/bash
# mk/startup.mk links linkopt-prefetch.o into the ordered program: its
# start-up code on a page of its own before the traced (hot) range, whose
# read-ahead window runs over the traced code (it cost a page of its own
# among the cold code once, and then a window from the traced range's end
# into the cold code).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_project
make -s startup > make.out 2>&1 || fail "make startup: $(tail -5 make.out)"
prefetch_apart prog
exit 0
