#!/bin/bash
# The include graph keeps its layers: scripts/house layers prints nothing
# and exits 0 (lib/ includes nothing of ours above it, a tool lib/ and its
# own headers).
. "$(dirname "$0")/lib.sh"
need git
git -C "$TOP" rev-parse --is-inside-work-tree > /dev/null 2>&1 ||
	skip "needs a git checkout: scripts/house reads the tracked sources"

status=0
"$TOP/scripts/house" layers > layers.out 2>&1 || status=$?
expect_empty layers.out "scripts/house layers"
((status == 0)) || fail "scripts/house layers: exit status $status"
exit 0
