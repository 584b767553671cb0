#!/bin/bash
# linkopt-startup --placement=best: on a program built for it, one whose
# 3,000 relocated pointers fill 70 KiB of .rela.dyn at the head of the
# file, -z pack-relative-relocs decides the cold start: the search finds
# a +relr layout that the model predicts reads fewer pages than the fixed
# recipe (--placement=cold-start, no relr), with its untraced code in 16
# KiB segments of its own (+seg16: head and data-first are tried with
# them, --no-segments leaves them out), and keeps it, installed, as an
# order (state, apply record, the same output); a second search with the
# same workloads does nothing.  A check whose output differs with relr
# (it prints whether the file has DT_RELR) makes every +relr candidate
# fail, and none of them is chosen.  The held-out workload is scored and
# shown, not used.  native_only runs natively and not under valgrind
# (x87 precision): the native run's page faults name it, and the model,
# which replays what a native run faults in after the trace, predicts
# what the measured cold start reads; so does the madvise of
# linkopt-prefetch.o over big's 200 KiB the start-up never runs (every
# candidate measured, --measure-all: the model was 10 to 20 pages short
# on the GNU ld layouts).  Without BOLT (t-startup-pipeline and the bench
# have it), to stay fast.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_buildsys
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

startup_functions w 150 > work.c
# 600 KiB of code nothing runs, between the start-up code and native_only
# in the plain link: natively, a cold start reads a window more there
echo '__attribute__((noinline, used)) void filler(void) { __asm__ volatile (".skip 614400, 0x90"); }' >> work.c
{
	echo 'int w3(int), w11(int), w19(int), w27(int), w35(int), w38(int);'
	echo 'typedef int (*fn)(int);'
	printf 'fn table[3000] = {'
	for i in $(seq 1 750); do printf 'w3, w11, w19, w27, '; done
	echo '};'
	# run natively only (valgrind's x87 long double has a double's precision),
	# in a 64 KiB block of its own: fault-around maps no more at once
	echo '__attribute__((noinline, aligned(65536))) int native_only(int x) { return x * 41 + 1; }'
} > table.c
cat > main.c <<'EOF2'
#include <stdio.h>
typedef int (*fn)(int);
extern fn table[3000];
int native_only(int);
/* start-up runs its head and its tail, never the 200 KiB between them:
   linkopt-prefetch.o's madvise reads them all the same */
static __attribute__((noinline)) int big(int x)
{
	if (x > 1000)
		__asm__ volatile (".skip 204800, 0x90");
	return x + 1;
}
int main(int argc, char **argv)
{
	int s = table[0](1) + table[1](2) + table[2](3) + table[3](argc) + big(argc);
	volatile long double x = 1;

	x += 1e-17L;
	if (x != 1)
		s += native_only(argc) - native_only(argc);

	(void)argv;
	printf("%d\n", s);
	return 0;
}
EOF2
"${cc[@]}" -O2 -ffunction-sections -fdata-sections -c work.c main.c table.c || fail "compile"
"${cc[@]}" -o prog main.o work.o table.o || fail "link"
run_ok want.out ./prog a
readelf -d prog | grep -q RELR && fail "fixture: the plain link has DT_RELR already"

# the search's arguments (again, from the plain link: startup_model_agrees)
search=(--dir="$dir" --target=prog --placement=best --no-bolt --measure-all --workload='./prog a b'
	--held-out='./prog x y z' -- ./prog a)
run_ok best.out "$LINKOPT_STARTUP" "${search[@]}"
cat best.out
# by default each read request counts as a read-ahead window's pages
expect_grep '^\(ranked by what a cold start reads, each read request counted as 32 pages more' best.out \
	"the default ranking at 128 KiB"
chosen=$(sed -n 's/^chosen: \([^:]*\):.*/\1/p' best.out)
[[ $chosen == *+relr ]] || fail "the search chose '$chosen', not a layout with relr"
readelf -d prog | grep -q RELR || fail "the program in place has no DT_RELR: the choice was not installed"
row() { awk -v name="$2" '$1 == name || ($1 == "*" && $2 == name)' "$1"; }
# the untraced code in 16 KiB segments of its own: the window read from
# the end of the traced code stops at its segment's end, where it ran on
# into the 600 KiB filler; the search tries it with head and data-first,
# and chooses it here (68 pages against 99 without, on the day it came,
# in no more read requests)
for layout in head+seg16 data-first+seg16 head+seg16+relr data-first+seg16+relr; do
	[[ -n $(row best.out "$layout") ]] || fail "no row for $layout: $(grep -E '^[ *] [a-z]' best.out)"
done
[[ $chosen == *+seg16* ]] || fail "the search chose '$chosen', not a layout with segments"
execs=$(readelf -lW prog | awk '$1 == "LOAD" && / R E / { n++ } END { print n + 0 }')
((execs > 2)) || fail "the chosen $chosen is in place with $execs executable segments"
run_ok got.out ./prog a
expect_same want.out got.out "the chosen layout's output"
# columns: name code-train code-held model-train measured-train model-held ...
model() { row "$1" "$2" | awk '{ if ($1 == "*") $1 = ""; $0 = $0; print $4 }'; }
best_cold=$(model best.out "$chosen")
# the fixed recipe's layout (--placement=cold-start, no relr) is a row too
fixed_cold=$(model best.out cold-start)
plain_cold=$(row best.out plain | awk '{ print $7 }')
[[ -n $best_cold && -n $fixed_cold && -n $plain_cold ]] || fail "no figures in the table"
awk -v b="$best_cold" -v f="$fixed_cold" 'BEGIN { exit !(b < f) }' ||
	fail "the chosen layout reads $best_cold pages, the fixed recipe (cold-start) $fixed_cold"
awk -v b="$best_cold" -v p="$plain_cold" 'BEGIN { exit !(b < p) }' ||
	fail "the chosen layout reads $best_cold pages, the plain link $plain_cold"
# the held-out workload is scored for each candidate
row best.out "$chosen" | awk '{ if ($1 == "*") $1 = ""; $0 = $0; exit !($3 != "-" && $6 != "-") }' ||
	fail "no held-out figures for the chosen layout: $(row best.out "$chosen")"
# and the choice says what it keeps held out, against plain, as its row does
held() { row best.out "$1" | awk '{ sub(/\(the default link\)/, ""); if ($1 == "*") $1 = ""; $0 = $0; print ($7 != "-" ? $7 : $6) }'; }
read -r said_held said_plain < <(sed -n 's/^chosen: .*; held out: \([0-9.]*\) against \([0-9.]*\) plain.*/\1 \2/p' best.out)
[[ $said_held == "$(held "$chosen")" && $said_plain == "$(held plain)" ]] ||
	fail "the choice says held out '$said_held' against '$said_plain'; the rows: $(held "$chosen"), $(held plain)"
# the table's note says what was measured, and names no steady time
# where there was no steady workload
expect_no_grep 'steady: CPU time' best.out
((EUID == 0)) &&
	expect_grep ', as the model predicts from the trace, and as measured on a loop device \(every candidate scored; the median of 3 cold starts\);' \
		best.out
# each cold start measured is kept, run by run (prog.best.cold): the
# table's measured figure of the choice is the mean of its training
# workloads' medians there
if ((EUID == 0)); then
	[[ -f $dir/prog.best.cold ]] || fail "no prog.best.cold: $(ls "$dir")"
	# training_mean KEY: the mean of KEY's medians over the chosen
	# layout's two training measurements of 3 runs each, "-" when one is
	# not there
	training_mean() {
		awk -F '\t' -v layout="$chosen" -v key="$1" '$1 == layout && $2 != "./prog x y z" {
			k = "\"" key "\": {\"median\": "
			if (!index($3, k) || !index($3, "\"runs\": 3,")) bad = 1
			v = substr($3, index($3, k) + length(k)); n++; sum += v + 0
		} END { if (n != 2 || bad) print "-"; else printf "%.1f\n", sum / n }' "$dir/prog.best.cold"
	}
	kept=$(training_mean pages_read)
	[[ $kept != - && $kept == "$(row best.out "$chosen" | awk '{ if ($1 == "*") $1 = ""; $0 = $0; print $5 }')" ]] ||
		fail "prog.best.cold's training cold starts of $chosen make '$kept', its row: $(row best.out "$chosen")"
	# and what they cost: the cost line's read requests are the mean of
	# the same runs' (the loop device's, medians), beside the model's,
	# which counts them as the device does (within one)
	requests=$(training_mean read_requests)
	[[ $requests != - ]] || fail "prog.best.cold has no read requests of $chosen"
	expect_grep "^cost: the cold starts measured, training: ${requests//./\\.} read requests \(the model: [0-9.]+\) and [0-9.]+ ms against [0-9.]+ \([0-9.]+\) and [0-9.]+ plain; held out: [0-9.]+ \([0-9.]+\) and [0-9.]+ ms against [0-9.]+ \([0-9.]+\) and [0-9.]+ plain" \
		best.out
	model_requests=$(sed -n 's/^cost: the cold starts measured, training: [0-9.]* read requests (the model: \([0-9.]*\)).*/\1/p' best.out)
	awk -v m="$model_requests" -v r="$requests" 'BEGIN { exit !(m - r <= 1 && r - m <= 1) }' ||
		fail "the model counts $model_requests read requests of $chosen's training cold starts, the device $requests"
	grep -c "^$chosen	./prog x y z	{" "$dir/prog.best.cold" | grep -qx 1 ||
		fail "prog.best.cold has not one held-out measurement of $chosen: $(cut -f1,2 "$dir/prog.best.cold")"
	# the table's reqs column is the model's count, the one the cost line gives
	[[ $(row best.out "$chosen" | awk '{ if ($1 == "*") $1 = ""; $0 = $0; print $9 }') == "$model_requests" ]] ||
		fail "the row of $chosen gives other read requests than the cost line's model ($model_requests): $(row best.out "$chosen")"
else
	# nothing measured: the rows are in the order of what ranks them, the
	# model's pages + 32 x its requests on the training workloads
	awk '/^[ *] [a-z]/ && !/^  layout/ && !/^  plain/ { if ($1 == "*") $1 = ""; $0 = $0
		if ($4 ~ /^[0-9.]+$/ && $9 ~ /^[0-9.]+$/) print $1, $4 + 32 * $9 }' best.out > ranked
	(($(wc -l < ranked) >= 3)) || fail "fewer than three rows with reqs: $(cat best.out)"
	sort -s -g -k2,2 ranked | cmp -s - ranked || fail "the rows are not in the order of pages + 32 x reqs: $(cat ranked)"
fi
# what runs natively and not under valgrind is named (its page faults, recorded natively)
if faults_recordable; then
	grep -E '^native run .*ran natively .* native_only' best.out > /dev/null ||
		fail "the natively run native_only was not named: $(grep '^native run' best.out)"
	# and the model counts what the native run faulted in: where a cold
	# start was measured (root), the model is within 4 pages of it (it
	# missed native_only's 64 KiB block, a read-ahead window)
	# (checked last: startup_model_agrees may search again)
	((EUID == 0)) && model_checked=1
	expect_grep '^\(model: the pagein traces, then the pages a native run' best.out
fi
# kept as an order: state, apply record, the table; no candidate files left
[[ -f $dir/prog.state && -f $dir/prog.apply && -f $dir/prog.best.txt ]] ||
	fail "the records of the chosen layout: $(ls "$dir")"
grep -q "^chosen: $chosen" "$dir/prog.best.txt" || fail "prog.best.txt does not name the choice"
compgen -G "$dir/prog.candidate.*" > /dev/null && fail "candidate files left: $(ls "$dir")"
compgen -G "$dir/prog.search.*" > /dev/null && fail "search traces left: $(ls "$dir")"
# the build's next link of prog gets the chosen layout back
rm prog
"${cc[@]}" -o prog main.o work.o table.o 2> relink.err || fail "relink through linkopt-cc: $(cat relink.err)"
readelf -d prog | grep -q RELR || fail "the later link through linkopt-cc lost the chosen layout's relr"
run_ok got2.out ./prog a
expect_same want.out got2.out "the relinked program's output"

# the same search again: nothing to do
run_ok again.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-bolt \
	--workload='./prog a b' --held-out='./prog x y z' -- ./prog a
expect_grep '(unchanged)' again.out

# --request-pages N: each read request counts as N pages more.  The
# search just made (by default N is 32) is another search than one with
# 4096 (not unchanged), and
# as root, every candidate measured, the table's rows are in the order of
# their measured training cold starts' pages + N x requests
# (prog.best.cold)
if ((EUID == 0)); then
	run_ok requests.out "$LINKOPT_STARTUP" --request-pages 4096 "${search[@]}"
	expect_no_grep '(unchanged)' requests.out
	expect_grep '^\(ranked by what a cold start reads, each read request counted as 4096 pages more' requests.out
	awk -F '\t' '$2 != "./prog x y z" {
		p = "\"pages_read\": {\"median\": "; r = "\"read_requests\": {\"median\": "
		pages[$1] += substr($3, index($3, p) + length(p)) + 0
		requests[$1] += substr($3, index($3, r) + length(r)) + 0
	} END { for (l in pages) printf "%s %.1f %.1f\n", l, pages[l] + 4096 * requests[l], pages[l] }' \
		"$dir/prog.best.cold" > ranks
	awk 'NR == FNR { rank[$1] = $2; next }
		/^[ *] [a-z]/ { name = $1 == "*" ? $2 : $1; if (name != "plain" && name in rank) print name, rank[name] }' ranks requests.out > order
	(($(wc -l < order) >= 3)) || fail "fewer than three candidates measured: $(cat order)"
	sort -s -g -k2,2 order | cmp -s - order || fail "the rows are not in the order of pages + 4096 x requests: $(cat order)"
	# which the pages alone would not give here
	awk 'NR == FNR { pages[$1] = $3; next } { print $1, pages[$1] }' ranks order > by_pages
	sort -s -g -k2,2 by_pages | cmp -s - by_pages &&
		note "the order by pages alone is the same here: the test cannot tell them apart"
fi

# a check whose output differs with relr: no +relr layout is chosen (at
# 64 KiB of read-ahead)
"$LINKOPT_STARTUP" --dir="$dir" --target=prog --undo -- true || fail "--undo"
readelf -d prog | grep -q RELR && fail "--undo left the relr link in place"
"${cc[@]}" -o prog main.o work.o table.o || fail "link again through linkopt-cc"
run_ok check.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-bolt --no-segments --no-cut \
	--read-ahead-kb 64 --check='readelf -d ./prog | grep -c RELR || true' --workload='./prog a b' -- ./prog a
cat check.out
# at 64 KiB of read-ahead a request counts as 16 pages
expect_grep '^\(ranked by what a cold start reads, each read request counted as 16 pages more' check.out \
	"the default ranking at 64 KiB"
grep -q '^chosen: ' check.out || fail "no choice said"
# --no-segments, --no-cut: no candidate with them
grep -E '^[ *] [a-z-]+\+seg' check.out && fail "--no-segments, and a candidate with segments"
grep -E '^[ *] [a-z-]+\+cut' check.out && fail "--no-cut, and a candidate cut"
chosen=$(sed -n 's/^chosen: \([^:(]*\)[:(].*/\1/p' check.out)
[[ -n $chosen && $chosen != *relr* ]] || fail "with a check that differs under relr, the search chose '$chosen'"
grep -E '^  [a-z-]+\+relr .*the check printed something else' check.out > /dev/null ||
	fail "the +relr candidates were not refused by the check"
readelf -d prog | grep -q RELR && fail "a relr link is in place"
# GNU ld's untraced code cut into pieces at start-up (+cut4): without
# segments and relr, the window the start-up reads from the traced code's
# last page runs on into the 600 KiB filler; cut, it stops at its piece
# (97 pages against 128 on the day it came, in no more read requests), so
# the cut is chosen, and
# kept as the rewrite of its ordered link: the file in place is the cut
# (its record filled), and the build's next link through linkopt-cc gets
# it back
"$LINKOPT_STARTUP" --dir="$dir" --target=prog --undo -- true || fail "--undo"
"${cc[@]}" -o prog main.o work.o table.o || fail "link again through linkopt-cc"
run_ok cut.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-bolt --no-segments --no-relr \
	--workload='./prog a b' -- ./prog a
cat cut.out
chosen=$(sed -n 's/^chosen: \([^:(]*\)[:(].*/\1/p' cut.out)
[[ $chosen == data-first+cut4 ]] || fail "the search chose '$chosen', not the cut data-first+cut4"
cut_cold=$(model cut.out data-first+cut4) uncut_cold=$(model cut.out data-first)
awk -v c="$cut_cold" -v u="$uncut_cold" 'BEGIN { exit !(c < u) }' ||
	fail "the cut reads $cut_cold pages, the same layout not cut $uncut_cold"
[[ -f $dir/prog.rewrite && -f $dir/prog.cut && -f $dir/prog.ordered ]] ||
	fail "the cut is not kept as a rewrite: $(ls "$dir")"
cmp -s prog "$dir/prog.cut" || fail "the file in place is not the cut kept"
cmp -s "$dir/prog.ordered" "$dir/prog.cut" && fail "the cut kept is its ordered link, its record not filled"
"$TOP/linkopt-report/linkopt" cut --kb 4 -o recut "$dir/prog.ordered" > /dev/null || fail "linkopt cut of the ordered link"
cmp -s recut "$dir/prog.cut" || fail "the cut kept is not linkopt cut --kb 4 of its ordered link"
rm prog
"${cc[@]}" -o prog main.o work.o table.o 2> relink.err || fail "relink through linkopt-cc: $(cat relink.err)"
cmp -s prog "$dir/prog.cut" || fail "the build's next link lost the cut: $(cat relink.err)"
run_ok got3.out ./prog a
expect_same want.out got3.out "the cut program's output"
# --verify passes the cut in place, and refuses the ordered link without
# its cut (the order linked again, not through linkopt-cc): the same
# build-id and code pages, and the cold start reads the filler again
run_ok verify.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --verify -- ./prog a
# what --verify compares is the order, not its provenance (the first
# line: the traces' paths and the link, which for BOLT's candidates was
# made with --emit-relocs): another link named there passes, the order
# without the line of a traced function does not
order=$(ls "$dir"/prog.gnu-ld.*.order) && cp "$order" order.kept || fail "no order kept: $(ls "$dir")"
sed -i '1s/; link: /; link: --emit-relocs /' "$order"
cmp -s order.kept "$order" && fail "the order's first line has no '; link: ': $(head -c 300 "$order")"
run_ok verify.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --verify -- ./prog a
cp order.kept "$order"
grep -q '^ *work\.o(\.text\.w3)$' "$order" || fail "w3, which the start-up runs, is not in the order"
sed -i '/^ *work\.o(\.text\.w3)$/d' "$order"
"$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --verify -- ./prog a > verify.out 2>&1 &&
	fail "--verify passes an order with a line of it removed: $(cat verify.out)"
expect_grep 'the order made now from its trace, map and the inputs differs' verify.out
cp order.kept "$order"
cp "$dir/prog.ordered" prog
"$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --verify -- ./prog a > verify.out 2>&1 &&
	fail "--verify passes the ordered link without its cut: $(cat verify.out)"
grep -q 'prog is its ordered link without the rewrite kept' verify.out ||
	fail "--verify does not say the cut is lost: $(cat verify.out)"
# the cut kept gone: refused, saying so
mv "$dir/prog.cut" cut.kept
"$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --verify -- ./prog a > verify.out 2>&1 &&
	fail "--verify passes without the cut kept: $(cat verify.out)"
expect_grep 'prog\.cut: the rewrite kept cannot be read' verify.out
mv cut.kept "$dir/prog.cut"
cp "$dir/prog.cut" prog

again() {
	"$LINKOPT_STARTUP" --dir="$dir" --target=prog --undo -- true && "${cc[@]}" -o prog main.o work.o table.o &&
		"$LINKOPT_STARTUP" "${search[@]}"
}
((${model_checked:-0})) && startup_model_agrees best.out again
exit 0
