#!/bin/bash
# The fuzzing table of docs/robustness.md is fuzz/table's of
# fuzz/history.tsv, the record of the runs it quotes, line for line;
# fuzz/table refuses a history line that is not fuzz/run's (naming it,
# exit status 1), a missing file (1) and wrong usage (2).
. "$(dirname "$0")/lib.sh"

"$TOP/fuzz/table" > table.out 2> table.err || fail "fuzz/table: $(cat table.err)"
sed -n '/^<!-- fuzz table: fuzz\/table fuzz\/history.tsv -->$/,/^<!-- end fuzz table -->$/p' "$TOP/docs/robustness.md" |
	grep '^|' > doc.out
[[ -s doc.out ]] || fail "docs/robustness.md has no table between <!-- fuzz table: fuzz/table fuzz/history.tsv --> and <!-- end fuzz table -->"
expect_same table.out doc.out "docs/robustness.md's fuzzing table against fuzz/table fuzz/history.tsv"

# sums over the runs: two runs of one harness, one of another
{
	echo '# a comment'
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		2026-01-01T00:00:00Z inputs 10 1000 100 0 0 0 \
		2026-01-02T00:00:00Z inputs 20 3000 150 0 1 0 \
		2026-01-02T00:00:00Z json 5 700 140 2 0 1
} > good.tsv
"$TOP/fuzz/table" good.tsv > good.out || fail "fuzz/table on a good history"
expect_grep '^\| inputs \| [^|]* \| 4000 \| 2 \| 30 \| 0 \| 1 \| 0 \|$' good.out "the inputs row"
expect_grep '^\| json \| [^|]* \| 700 \| 1 \| 5 \| 2 \| 0 \| 1 \|$' good.out "the json row"
expect_grep '^\| elfobj \| [^|]* \| 0 \| 0 \| 0 \| 0 \| 0 \| 0 \|$' good.out "a harness that never ran"

{ cat good.tsv; printf '2026-01-03T00:00:00Z\tinputs\tten\t1\t1\t0\t0\t0\n'; } > bad.tsv
status=0
"$TOP/fuzz/table" bad.tsv > bad.out 2> bad.err || status=$?
((status == 1)) || fail "fuzz/table on a bad line: exit status $status, not 1"
expect_grep '^fuzz/table: bad\.tsv:5: not a line of fuzz/run' bad.err "fuzz/table's error"
[[ ! -s bad.out ]] || fail "fuzz/table printed a table from a bad history: $(cat bad.out)"
printf '2026-01-03T00:00:00Z\tnosuch\t1\t1\t1\t0\t0\t0\n' > unknown.tsv
status=0
"$TOP/fuzz/table" unknown.tsv > /dev/null 2> unknown.err || status=$?
((status == 1)) || fail "fuzz/table on an unknown harness: exit status $status, not 1"
status=0
"$TOP/fuzz/table" missing.tsv > /dev/null 2> missing.err || status=$?
((status == 1)) || fail "fuzz/table on a missing file: exit status $status, not 1"
expect_grep '^fuzz/table: missing\.tsv: cannot read it' missing.err "fuzz/table's error on a missing file"
status=0
"$TOP/fuzz/table" a b > /dev/null 2>&1 || status=$?
((status == 2)) || fail "fuzz/table with two arguments: exit status $status, not 2"
exit 0
