#!/bin/bash
# The % column of likely-check report is never 0 for a site that was ever
# wrong, and never reads at or under a --threshold or --fail-over gate that
# the site fails: it was a whole number, so a site failing --fail-over=0.05
# (1 wrong in 1,999) showed 0%.  Rounded down, with two decimals or as many
# more as that takes; the same in the by-macro sums and in the JSON report.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC ]] || fail "likely-check is not built (run make)"

site() { # CORRECT INCORRECT LINE: a data file's line for a.c:LINE
	printf 'site %s %s 0 1 %s\ta.c\tf\tx%s\n' "$1" "$2" "$3" "$3"
}
{
	echo 'likely-check 1'
	site 1998 1 7        # 0.050025...%: over a 0.05 gate
	site 1998 1 8        # the same at another line (the macro sums them)
	site 1999998 1 9     # 0.0000500000125%
	site 999999999 1 10  # 0.0000001%
	site 2998 1 11       # 0.0333...%
	site 1 2 12          # 66.666...%
	site 5 0 13          # never wrong
	printf 'macro 7\ta.c\tM (a.h:1)\nmacro 8\ta.c\tM (a.h:1)\n'
} > counts.data

# The rows of the report: correct, incorrect, % and the site.
rows() {
	sed -n '/correct  incorrect/,/^$/p' "$1" | awk 'NF > 4 && $1 != "correct" { print ($1 == "!" ? "! " $4 : $3), $NF == "1)" ? $(NF - 2) : "" }'
}

expect_exit 1 gate.out "$LC" report --fail-over=0.05 counts.data
expect_grep '^likely-check: 3 hint sites wrong more than 0.05% of the time$' gate.out.err
rows gate.out > got
cat > want <<'EOF2'
! 66.66 x12
! 0.05002 x7
! 0.05002 x8
0.03 x11
0.00005 x9
0.0000001 x10
0.00 x13
EOF2
expect_same want got "the % column with --fail-over=0.05"
expect_grep '^ +3996 +2 +0.05002 +2  M \(a.h:1\)$' gate.out "the by-macro sum"

# exactly at the gate: not over it, and shown as the gate
{ echo 'likely-check 1'; site 1999 1 7; site 1998 2 8; } > at.data
expect_exit 0 gate-at.out "$LC" report --fail-over=0.1 at.data
expect_empty gate-at.out.err "--fail-over=0.1 with a site at 0.1%: stderr"
"$LC" report --threshold=0.05 at.data > at.out || fail "report --threshold=0.05 failed"
rows at.out > got
printf '! 0.10 x8\n0.05 x7\n' > want
expect_same want got "a site at the threshold and one over it"

# both gates: a site over the lower one shows above it too
expect_exit 1 both.out "$LC" report --threshold=20 --fail-over=0.00001 counts.data
rows both.out > got
cat > want <<'EOF2'
! 66.66 x12
0.05 x7
0.05 x8
0.03 x11
0.00005 x9
0.0000001 x10
0.00 x13
EOF2
expect_same want got "the % column with --threshold=20 --fail-over=0.00001"

expect_exit 1 json.out "$LC" report --format=json --fail-over=0.05 counts.data
expect_grep '"format_version": 2,' json.out "the JSON report"
expect_grep '"line":7,.*"percent_incorrect":0.05002,"over_threshold":true' json.out "the JSON report"
expect_grep '"line":10,.*"percent_incorrect":0.0000001,"over_threshold":false' json.out "the JSON report"
if command -v python3 > /dev/null; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' json.out ||
		fail "the JSON report does not parse"
fi
exit 0
