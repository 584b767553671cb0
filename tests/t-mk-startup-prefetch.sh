#!/bin/bash
# mk/startup.mk links linkopt-prefetch.o into the ordered program: its
# start-up code lies inside the traced (hot) range, not among the cold code
# where it cost a page of its own.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_project
make -s startup > make.out 2>&1 || fail "make startup: $(tail -5 make.out)"
address() { nm prog | awk -v s="$1" '$3 == s { print "0x" $1; exit }'; }
start=$(address __linkopt_hot_start) end=$(address __linkopt_hot_end) prefetch=$(address linkopt_prefetch)
[[ -n $start && -n $end && -n $prefetch ]] || fail "nm: hot range '$start'-'$end', linkopt_prefetch '$prefetch'"
((prefetch >= start && prefetch < end)) ||
	fail "linkopt_prefetch at $prefetch is outside the hot range $start-$end"
exit 0
