#!/bin/bash
# linkopt report in a real browser: Debian's chromium, headless, loads the
# report of samples/startup traced before and after deporder's order, and
# what it lays out is checked: one drawn square per page of the load
# segments (per readelf), a touched one per page pagein recorded, before
# and after side by side, the figures as printed, the hot range's bars, no
# script of the page's own.  A screenshot is kept beside the test's files
# and copied to tests/report-screenshot.png, and must show the squares'
# colours.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/report-lib.sh"
need_report
need chromium python3 ar

"$TOP/samples/startup/gen" src > /dev/null || fail "samples/startup/gen"
"$TOP/samples/startup/build" src out > /dev/null || fail "samples/startup/build"
cd out || fail "no out"
gcc -o prog-default startup.o libstartup.a -Wl,-Map=default.map || fail "default link"
./prog-default > want.out || fail "prog-default"
"$PAGEIN" --granularity=function --output="$PWD/default.trace" -- ./prog-default > /dev/null 2>&1 ||
	fail "pagein on the default link"
"$DEPORDER" -q --granularity=section --trace default.trace --map default.map --emit=gnu-ld \
	--cc -- gcc -o prog startup.o libstartup.a > order.ld 2> deporder.log || fail "deporder: $(head -3 deporder.log)"
gcc -o prog startup.o libstartup.a -Wl,-T,order.ld || fail "link with the script"
expect_output want.out got.out "the ordered program's output" ./prog
"$PAGEIN" --granularity=function --output="$PWD/after.trace" -- ./prog > /dev/null 2>&1 || fail "pagein on prog"
"$LINKOPT" report --same-program default.trace after.trace --order order.ld --deporder-log deporder.log \
	--faults-before 141 --faults-after 97 -o report.html 2> report.err || fail "linkopt report: $(head -3 report.err)"

# chromium -- ARGS...: headless, in a profile of its own, bounded in time.
chromium_run() {
	timeout -k 5 120 chromium --headless --disable-gpu --no-sandbox --hide-scrollbars --user-data-dir="$PWD/profile" \
		--window-size=1500,1300 "$@" 2>> chromium.err
}

# What the browser laid out, measured by a script added to a copy of the
# page (the page itself has none) and written into the DOM chromium dumps.
cat > measure.js <<'EOF2'
(function () {
	const out = { sides: {} };
	for (const side of document.querySelectorAll('.side')) {
		const cells = side.querySelectorAll('rect.page');
		let drawn = 0;
		for (const c of cells) {
			const b = c.getBoundingClientRect();
			if (b.width >= 5 && b.height >= 5)
				drawn++;
		}
		const box = side.getBoundingClientRect(), figures = {};
		for (const row of side.querySelectorAll('tr[data-figure]'))
			figures[row.dataset.figure] = row.innerText.replace(/\s+/g, ' ').trim();
		out.sides[side.dataset.side] = {
			cells: cells.length, drawn: drawn,
			code: side.querySelectorAll('rect.page.code').length,
			data: side.querySelectorAll('rect.page.data').length,
			touched: side.querySelectorAll('rect.page.touched').length,
			untouched_fill: side.querySelector('rect.page.untouched') ?
				getComputedStyle(side.querySelector('rect.page.untouched')).fill : '',
			hot: side.querySelectorAll('rect.hot').length,
			left: Math.round(box.left), right: Math.round(box.right), top: Math.round(box.top),
			figures: figures,
		};
	}
	out.scripts = document.scripts.length;
	out.h1 = document.querySelector('h1').innerText;
	out.order = Array.from(document.querySelectorAll('ul.order li')).map(li => li.innerText);
	out.faults = document.querySelector('tr[data-figure="faults"]').innerText.replace(/\s+/g, ' ').trim();
	const pre = document.createElement('pre');
	pre.id = 'measured';
	pre.textContent = JSON.stringify(out);
	document.body.appendChild(pre);
})();
EOF2
awk '/<\/body>/ { print "<script>"; while ((getline line < "measure.js") > 0) print line; print "</script>" } { print }' \
	report.html > measured.html
chromium_run --dump-dom "file://$PWD/measured.html" > dom.html || fail "chromium --dump-dom: $(tail -3 chromium.err)"
python3 - dom.html > measured.txt <<'EOF2' || fail "no measurements in chromium's DOM: $(head -c 300 dom.html)"
import html, json, re, shlex, sys
text = open(sys.argv[1], encoding='utf-8').read()
m = re.search(r'<pre id="measured">(.*?)</pre>', text, re.S)
data = json.loads(html.unescape(m.group(1)))
def say(name, value):
    print(f'{name}={shlex.quote(str(value))}')
for name, side in data['sides'].items():
    for key in ('cells', 'drawn', 'code', 'data', 'touched', 'hot', 'left', 'right', 'top', 'untouched_fill'):
        say(f'{name}_{key}', side[key])
    for key, value in side['figures'].items():
        say(f'{name}_figure_{key.replace("-", "_")}', value)
say('scripts', data['scripts'])
say('h1', data['h1'])
say('order', ' | '.join(data['order']))
say('faults', data['faults'])
EOF2
. ./measured.txt

for side in before after; do
	binary=prog-default trace=default.trace
	[[ $side == after ]] && binary=prog trace=after.trace
	pages=$(( $(segment_pages $binary code) + $(segment_pages $binary data) ))
	code=$(relative $trace "$PWD/$binary" C | wc -l)
	data=$(relative $trace "$PWD/$binary" D | wc -l)
	eval "cells=\$${side}_cells drawn=\$${side}_drawn got_code=\$${side}_code got_data=\$${side}_data"
	eval "figure_code=\$${side}_figure_code_pages figure_data=\$${side}_figure_data_pages"
	((cells == pages)) || fail "$side: the browser finds $cells squares, the load segments hold $pages pages"
	((drawn == pages)) || fail "$side: the browser drew $drawn of the $pages squares at 5 pixels or more"
	((got_code == code)) || fail "$side: $got_code squares of code run, pagein recorded $code"
	((got_data == data)) || fail "$side: $got_data squares of data used, pagein recorded $data"
	[[ $figure_code == "code pages run $code of "* ]] || fail "$side: the page shows '$figure_code'"
	[[ $figure_data == "data pages used $data of "* ]] || fail "$side: the page shows '$figure_data'"
	eval "${side}_pagein_code=$code"
	echo "$side: $pages squares, $code code and $data data pages touched"
done
((after_pagein_code < before_pagein_code)) || fail "the order did not cut the code pages run"
[[ $after_figure_code_pages == *"($(awk -v a=$after_pagein_code -v b=$before_pagein_code 'BEGIN { printf "%.2f", a / b }')x)" ]] ||
	fail "after's ratio: '$after_figure_code_pages'"
((after_left >= before_right && after_top == before_top)) ||
	fail "before and after are not side by side (before ends at $before_right, after starts at $after_left)"
((after_hot > 0)) || fail "no hot range drawn after the order"
[[ $after_figure_hot_range == *"functions start-up ran, one after another"* ]] || fail "after's hot range: '$after_figure_hot_range'"
[[ $before_untouched_fill == "rgb(227, 227, 227)" || $before_untouched_fill == "rgb(169, 169, 169)" ]] ||
	fail "an untouched page is drawn in $before_untouched_fill, not grey"
((scripts == 1)) || fail "the page runs $((scripts - 1)) scripts of its own"
[[ $h1 == "Start-up pages of prog-default" ]] || fail "the heading is '$h1'"
bound=$(sed -n 's/.*at least \([0-9]*\) pages of 4096 (the whole-function bound).*/\1/p' deporder.log)
[[ $order == *"The traces matched the link: 100.0% (order.ld)"* ]] || fail "the match rate shown: '$order'"
[[ $order == *"Whole-function bound: at least $bound code pages"*"after: $after_pagein_code, "* ]] ||
	fail "the bound shown: '$order'"
[[ $faults == "faults 141 97 (0.69x)" ]] || fail "the faults shown: '$faults'"

# The screenshot: a PNG of the window, showing the viridis squares, the
# greys and the hot range's red.
chromium_run --screenshot="$PWD/report.png" "file://$PWD/report.html" > /dev/null ||
	fail "chromium --screenshot: $(tail -3 chromium.err)"
python3 - report.png <<'EOF2' || fail "the screenshot does not show the report"
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, width = 8, b'', 0
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b'IHDR':
        width, height, depth, colour = struct.unpack('>IIBB', body[:10])
        assert depth == 8 and colour in (2, 6), f'PNG depth {depth} colour type {colour}'
        channels = 3 if colour == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + length
assert width == 1500, f'width {width}'
raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b, c = prev[i], prev[i - channels] if i >= channels else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
seen = {}
for row in rows:
    for x in range(0, stride, channels):
        px = row[x:x + 3]
        seen[px] = seen.get(px, 0) + 1
want = {'first touch (#440154)': b'\x44\x01\x54', 'untouched (#e3e3e3)': b'\xe3\xe3\xe3',
        'read, untouched (#a9a9a9)': b'\xa9\xa9\xa9', 'hot range (#d62728)': b'\xd6\x27\x28'}
for name, px in want.items():
    assert seen.get(px, 0) >= 20, f'{name}: {seen.get(px, 0)} pixels'
viridis = sum(n for px, n in seen.items() if px[1] > px[0] and px[1] > 60 and px[2] > 30)
assert viridis > 2000, f'{viridis} pixels of the colour scale'
print(f'{width}x{height}, {len(seen)} colours')
EOF2
cp report.png "$TOP/tests/report-screenshot.png" 2> /dev/null ||
	echo "cannot copy the screenshot to $TOP/tests/report-screenshot.png"
exit 0
