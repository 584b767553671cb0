#!/bin/bash
# deporder --evaluate's cold start of a link made with linkopt-prefetch.o
# (an ordered link, evaluated again): its "now" figures replay the
# prefetch's madvise where the trace says its constructor ran, as
# pagein-report does and as the kernel reads; they replayed the run
# without it (SQLite's cold-start link: 12 read requests predicted against
# pagein-report's 9).  At each read-ahead, pages and requests are the same
# figures in both tools.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need_prefetch

coldstart_program
deporder_ok cold.ld cold.err -q --granularity=section --placement=cold-start --emit=gnu-ld \
	--trace trace --map prog.map --cc -- "${coldstart_link[@]}"
link=(gcc -o pf main.o work.o "$prefetch")
"${link[@]}" -Wl,-T,cold.ld -Wl,-Map=pf.map || fail "the link with the order and linkopt-prefetch.o"
nm pf | grep -q ' __linkopt_hot_start$' || fail "the link has no __linkopt_hot_start: the prefetch has nothing to read"
"$PAGEIN" --granularity=function --output="$PWD/pf.trace" -- ./pf > got.out 2> pagein.err ||
	fail "pagein: $(head -3 pagein.err)"
expect_same want.out got.out "the output of the link with the prefetch"
grep -q ' F .* linkopt_prefetch (in ' pf.trace || fail "the trace does not show linkopt_prefetch running"
for kb in 16 32 128; do
	run_ok report.out "$PAGEIN" report --read-ahead-kb "$kb" pf.trace
	read -r r_pages r_reqs < <(awk -v p="$PWD/pf" '$1 == p { n = split($0, f, " "); gsub(/[()]/, "", f[n]); print f[n - 1], f[n] }' report.out)
	[[ -n $r_pages ]] || fail "pagein-report names no cold start of pf: $(cat report.out)"
	deporder_ok evaluate.out evaluate.err -q --granularity=section --evaluate --read-ahead-kb="$kb" \
		--trace pf.trace --map pf.map --binary pf --cc -- "${link[@]}" -Wl,-T,cold.ld
	read -r e_pages e_reqs < <(awk 'NR == 2 { print $6, $8 }' evaluate.out)
	[[ $e_pages == "$r_pages" && $e_reqs == "$r_reqs" ]] ||
		fail "at $kb KiB deporder --evaluate predicts $e_pages pages in $e_reqs requests for pf, pagein-report $r_pages in $r_reqs"
done
echo "pf: the same figures in both tools at 16, 32 and 128 KiB"
exit 0
