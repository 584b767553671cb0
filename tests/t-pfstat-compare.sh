#!/bin/bash
# pfstat --compare runs both commands the same way, directly: a command
# compared with itself shows the same figures, its ratios within 5% on
# minor faults and pages read (medians of 51 runs each; the runs of one
# command spread from 81 to 86 minor faults, and two medians of the same
# command were 82 and 84 in a make check, 2.4% apart), major faults and
# pages read equal.  Before, the second command ran under sh -c and the
# shell's own faults counted as the command's: 1.6 to 1.9 times the minor
# faults of the same command run first.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup

head -c $((64 * 4096)) /dev/urandom > data
run_ok cmp.out "$PF" -n 51 --cold data --compare './probe read data' -- ./probe read data
for row in "minor faults" "pages read"; do
	first=$(field cmp.out "$row" 1)
	second=$(field cmp.out "$row" 4)
	[[ -n $first && -n $second ]] || fail "no '$row' row in the report: $(cat cmp.out)"
	awk -v a="$first" -v b="$second" 'BEGIN { exit !(a > 0 && b / a >= 0.95 && b / a <= 1.05) }' ||
		fail "$row: $second against $first for the same command, not within 5%: $(cat cmp.out)"
done
[[ $(field cmp.out "pages read" 1) == 64.0 && $(field cmp.out "pages read" 4) == 64.0 ]] ||
	fail "pages read of a 64-page file read whole: not 64 for both: $(cat cmp.out)"
[[ $(field cmp.out "major faults" 1) == "$(field cmp.out "major faults" 4)" ]] ||
	fail "major faults differ for the same command: $(cat cmp.out)"
exit 0
