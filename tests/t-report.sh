#!/bin/bash
# linkopt report on a real program traced by pagein before and after
# deporder's order: one HTML file, nothing outside it, whose grids have one
# square per page of the binaries' load segments (per readelf), a touched
# square per page pagein recorded, the figures of the traces and of
# deporder's files, the hot range where the order put the start-up
# functions (or where the script's symbols say), the cold-start model
# bounded by the file, and every string escaped.  The default link and the
# ordered one have two names: --same-program says they are one program.  A
# binary relinked since its trace is read from its traced build kept beside
# the trace (by build-id), and refused without it; an --out that is an
# input, and bad inputs are refused, and a failed run leaves the earlier
# page as it was.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/report-lib.sh"
need_report

# 24 functions of about 3 KiB each, scattered; start-up runs five of them.
{
	echo '#include <stdio.h>'
	echo '#include <string.h>'
	for i in $(seq 0 23); do
		printf '__attribute__((noinline)) int f%d(int x)\n{\n\tvolatile int a[64];\n' "$i"
		printf '\tfor (int k = 0; k < 64; k++)\n\t\ta[k] = x * %d + k;\n' "$((i + 3))"
		for j in $(seq 1 90); do printf '\tx = x * %d + a[%d];\n' "$((j % 7 + 2))" "$((j % 64))"; done
		printf '\treturn x;\n}\n'
	done
	cat <<'EOF2'
int main(int argc, char **argv)
{
	int s = f3(1) + f17(2) + f9(3) + f21(4) + f5(5);
	if (argc > 1 && !strcmp(argv[1], "all"))
		for (int i = 0; i < 24; i++)
			s += f0(i) + f1(i) + f2(i) + f4(i) + f6(i) + f7(i) + f8(i) + f10(i) + f11(i) + f12(i) +
			     f13(i) + f14(i) + f15(i) + f16(i) + f18(i) + f19(i) + f20(i) + f22(i) + f23(i);
	printf("%d\n", s);
	return 0;
}
EOF2
} > prog.c
gcc -O2 -g -ffunction-sections -fdata-sections -c prog.c || fail "cannot compile prog.c"
gcc -o prog-default prog.o -Wl,-Map=default.map || fail "default link"
"$PAGEIN" --granularity=function --output="$PWD/default.trace" -- ./prog-default > /dev/null 2>&1 ||
	fail "pagein on the default link"
"$DEPORDER" -q --granularity=section --trace default.trace --map default.map --emit=gnu-ld \
	--cc -- gcc -o prog prog.o > order.ld 2> deporder.log || fail "deporder: $(head -3 deporder.log)"
gcc -o prog prog.o -Wl,-T,order.ld || fail "link with the script"
"$PAGEIN" --granularity=function --output="$PWD/after.trace" -- ./prog > /dev/null 2>&1 || fail "pagein on prog"

status=0
"$LINKOPT" report --same-program default.trace after.trace --order order.ld --deporder-log deporder.log \
	--faults-before 120 --faults-after 90 --time-before 2.5ms --time-after 2000us -o report.html \
	> report.out 2> report.err || status=$?
((status == 0)) || fail "linkopt report: status $status: $(head -3 report.err)"
expect_empty report.out "linkopt report's stdout"
expect_empty report.err "linkopt report's stderr"
[[ -s report.html ]] || fail "no report.html"
ls report.html.tmp* > /dev/null 2>&1 && fail "a temporary file was left"

# One file: nothing fetched, no script, the only url() the page's own gradient.
expect_no_grep '<script|<link|<iframe|<img|src=|href=|@import' report.html "the page"
grep -oE 'url\([^)]*\)' report.html | grep -v '^url(#' > urls || true
expect_empty urls "url() other than the page's own"

# The grids: one square per page of the load segments, per readelf; a
# touched square per page pagein recorded; the figures say the same.
for side in before after; do
	binary=prog-default trace=default.trace
	[[ $side == after ]] && binary=prog trace=after.trace
	side_of report.html $side > $side.html
	want_cells=$(( $(segment_pages $binary code) + $(segment_pages $binary data) ))
	cells=$(count '<rect class="page ' < $side.html)
	((cells == want_cells)) || fail "$side: $cells squares, the load segments of $binary hold $want_cells pages"
	code=$(relative $trace "$PWD/$binary" C | wc -l)
	data=$(relative $trace "$PWD/$binary" D | wc -l)
	((code > 0 && data > 0)) || fail "$side: pagein recorded $code code and $data data pages"
	got=$(count '<rect class="page touched[a-z ]* code' < $side.html)
	((got == code)) || fail "$side: $got squares of code run, pagein recorded $code code pages"
	got=$(count '<rect class="page touched( code)? data' < $side.html)
	((got == data)) || fail "$side: $got squares of data used, pagein recorded $data data pages"
	[[ $(figure report.html $side code-pages) == "$code" ]] ||
		fail "$side: the code-pages figure is '$(figure report.html $side code-pages)', pagein's $code"
	[[ $(figure report.html $side data-pages) == "$data" ]] ||
		fail "$side: the data-pages figure is '$(figure report.html $side data-pages)', pagein's $data"
	touched=$(count '<rect class="page touched' < $side.html)
	[[ $(figure report.html $side pages-touched) == "$touched" ]] || fail "$side: pages-touched figure"
	reads=$(figure report.html $side cold-reads)
	file_pages=$(( ($(stat -c %s $binary) + 4095) / 4096 ))
	((reads >= touched - 1 && reads <= file_pages)) ||
		fail "$side: $reads file pages read at a cold start, $touched touched, $file_pages in the file"
	eval "${side}_code=$code"
done
((after_code < before_code)) || fail "the ordered program runs $after_code code pages, the default $before_code"
expect_grep "<tr data-figure=\"code-pages\" data-value=\"$after_code\">.*\(0\.[0-9][0-9]x\)" after.html "after's ratio"

# The run's figures as given, the order's from deporder's files.
expect_grep '<tr data-figure="faults"><th>faults</th><td class="n">120</td><td class="n">90 <span class="ratio">\(0\.75x\)</span>' \
	report.html "the faults"
expect_grep '<tr data-figure="wall-time">.*2\.5 ms.*2\.0 ms <span class="ratio">\(0\.80x\)' report.html "the wall time"
expect_grep '<li data-figure="match-rate" data-value="100\.0">.*\(<code>order\.ld</code>\)' report.html "the match rate"
bound=$(sed -n 's/.*at least \([0-9]*\) pages of 4096 (the whole-function bound).*/\1/p' deporder.log)
[[ -n $bound ]] || fail "deporder printed no bound"
expect_grep "<li data-figure=\"bound\" data-value=\"$bound\">" report.html "the bound"

# The hot range of the ordered program holds the functions start-up ran,
# one after another; the default link's stretch is shorter.
hot_of() { sed -n 's/.*<tr data-figure="hot-range">.*>0x\([0-9a-f]*\)-0x\([0-9a-f]*\)<.*: \([0-9]*\) functions.*/\1 \2 \3/p' "$1"; }
read -r hot_start hot_end hot_functions <<< "$(hot_of after.html)"
[[ -n $hot_functions ]] || fail "no hot range after: $(grep hot-range after.html)"
for f in main f3 f17 f9 f21 f5; do
	a=$(nm prog | awk -v f=$f '$3 == f { print $1 }')
	((0x$a >= 0x$hot_start && 0x$a < 0x$hot_end)) || fail "$f (0x$a) is not in the hot range 0x$hot_start-0x$hot_end"
done
read -r _ _ before_functions <<< "$(hot_of before.html)"
((before_functions < hot_functions)) || fail "the default link's hot stretch ($before_functions) is not shorter"
hot_pages=$(( (0x$hot_end + 4095) / 4096 - 0x$hot_start / 4096 ))
(( $(count '<rect class="hot"' < after.html) == hot_pages )) || fail "after: not $hot_pages hot bars"

# With linkopt-prefetch.o the script's own symbols mark the range.
gcc -o prog-prefetch prog.o "$TOP/prefetch/linkopt-prefetch.o" -Wl,-T,order.ld || fail "link with prefetch"
"$PAGEIN" --output="$PWD/prefetch.trace" -- ./prog-prefetch > /dev/null 2>&1 || fail "pagein on prog-prefetch"
"$LINKOPT" report prefetch.trace -o prefetch.html 2> prefetch.err || fail "report on prog-prefetch: $(cat prefetch.err)"
start=$(nm prog-prefetch | awk '$3 == "__linkopt_hot_start" { print $1 }')
end=$(nm prog-prefetch | awk '$3 == "__linkopt_hot_end" { print $1 }')
[[ -n $start && -n $end ]] || fail "prog-prefetch has no __linkopt_hot_start/_end"
expect_grep "<tr data-figure=\"hot-range\">.*>$(printf '0x%x-0x%x' 0x$start 0x$end)<.*__linkopt_hot_start to __linkopt_hot_end" \
	prefetch.html "the hot range of the script's symbols"
expect_no_grep 'data-side="after"' prefetch.html "a report of one trace"

# The cold-start model: a window as large as the file reads all of it; a
# window of nothing reads only pages touched.
"$LINKOPT" report default.trace --read-ahead-kb 1048576 -o whole.html || fail "--read-ahead-kb 1048576"
file_pages=$(( ($(stat -c %s prog-default) + 4095) / 4096 ))
[[ $(figure whole.html before cold-reads) == "$file_pages" ]] ||
	fail "a window larger than the file reads $(figure whole.html before cold-reads) of its $file_pages pages"
"$LINKOPT" report default.trace --read-ahead-kb 0 -o none.html || fail "--read-ahead-kb 0"
reads=$(figure none.html before cold-reads) touched=$(figure none.html before pages-touched)
((reads >= 1 && reads <= touched)) || fail "a window of 0 reads $reads pages, $touched touched"
expect_grep 'reads 0 KiB of the file' none.html "the model's window in the page"

# --scale=order: the first page touched darkest, the last lightest.
"$LINKOPT" report default.trace --scale=order -o order.html || fail "--scale=order"
expect_grep '<rect class="page touched[a-z ]*" [^>]* fill="#440154"[^>]* data-rank="1"' order.html "the first page's colour"
last=$(figure order.html before pages-touched)
expect_grep "<rect class=\"page touched[a-z ]*\" [^>]* fill=\"#fde725\"[^>]* data-rank=\"$last\"" order.html "the last page's colour"

# Every string escaped: a folder named with markup, quotes and a Latin-1
# byte, and a title with a script.
weird=$'we<b>ird&"q\'\xe9'
mkdir "$weird" && cp prog-default "$weird/prog" || fail "cannot make the folder"
"$PAGEIN" --output="$PWD/weird.trace" -- "./$weird/prog" > /dev/null 2>&1 || fail "pagein in the odd folder"
"$LINKOPT" report weird.trace --title '<script>alert(1)</script> & "t"' -o weird.html || fail "report of the odd folder"
expect_no_grep '<b>|<script' weird.html "the escaped page"
expect_grep 'we&lt;b&gt;ird&amp;&quot;q&#39;\\xe9/prog' weird.html "the escaped path"
expect_grep '<h1>&lt;script&gt;alert\(1\)&lt;/script&gt; &amp; &quot;t&quot;</h1>' weird.html "the escaped title"

# Refusals.
refused() { # STATUS WHAT PATTERN ARGS...
	local want=$1 what=$2 pattern=$3
	shift 3
	status=0
	"$LINKOPT" report "$@" > refused.out 2> refused.err || status=$?
	((status == want)) || fail "$what: status $status, not $want: $(head -2 refused.err)"
	expect_grep "$pattern" refused.err "$what"
}
cp report.html report.before
refused 1 "--out on a trace" "^linkopt: default\.trace: is the input default\.trace \(the same file\)" default.trace -o default.trace
refused 2 "three traces" "give one trace, or two" default.trace after.trace after.trace
# the program it draws is read too: the page must not replace it (it did, exit 0)
cp -p prog-default prog-default.pristine
refused 1 "--out on the traced program" "^linkopt: \./prog-default: is the input .*/prog-default \(the same file\)" \
	default.trace -o ./prog-default
cmp -s prog-default prog-default.pristine || fail "--out on the traced program changed it"
cp -p prog-default prog-default.copy
refused 1 "--out on a --binary copy" "^linkopt: prog-default\.copy: is the input prog-default\.copy \(the same file\)" \
	default.trace --binary prog-default.copy -o prog-default.copy
cmp -s prog-default.copy prog-default.pristine || fail "--out on a --binary copy changed it"
rm -f prog-default.copy prog-default.pristine
refused 1 "an object no path matches" "no object's path matches '\*/libnothere\.so'" default.trace --object '*/libnothere.so'
refused 1 "not a pagein trace" "^linkopt: prog\.c: " prog.c
printf 'deporder: nothing here\n' > junk.log
refused 1 "a log without figures" "junk\.log: holds no match rate" --same-program default.trace after.trace \
	--deporder-log junk.log -o report.html
refused 1 "an order without a match rate" "prog\.c: its first line records no match rate" default.trace --order prog.c -o report.html
cmp -s report.html report.before || fail "a refused run changed report.html"
ls report.html.tmp* > /dev/null 2>&1 && fail "a refused run left a temporary file"
# The default link relinked since its trace: another build-id.  Its
# traced build kept beside the trace is read in its place; without it,
# refused.
mv prog-default prog-default.traced
gcc -o prog-default prog.o -Wl,-T,order.ld || fail "relink"
"$LINKOPT" report --same-program default.trace after.trace -o kept.html 2> kept.err ||
	fail "the traced build kept beside the trace: $(head -2 kept.err)"
side_of kept.html before | grep -q 'read from <code>\./prog-default\.traced</code>' ||
	fail "the report does not say it read ./prog-default.traced"
mkdir away && mv prog-default.traced away/
refused 1 "a binary relinked since" "default\.trace: no file has the build-id [0-9a-f]+ of the traced $PWD/prog-default: not at its path \(relinked since\?\)" \
	--same-program default.trace after.trace -o report.html
cmp -s report.html report.before || fail "a refused run changed report.html"
exit 0
