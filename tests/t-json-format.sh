#!/bin/bash
# Every JSON output opens with its format name and version, and is valid
# JSON even when a path holds bytes that are not UTF-8 (a folder named in
# Latin-1): they come out as \u00XX.  Before, such a byte was copied raw
# and the document did not parse.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need python3
need_deporder

dir=$(printf 'caf\xe9')
mkdir "$dir"
cat > "$dir/prog.c" <<'EOF2'
#include <stdio.h>
__attribute__((noinline)) int work(int x) { return x * 3; }
int main(void) { printf("%d\n", work(14)); return 0; }
EOF2
gcc -O1 -ffunction-sections -finstrument-functions -c -o "$dir/prog.o" "$dir/prog.c" || fail "compile"
gcc -o "$dir/prog" "$dir/prog.o" "$TOP/cygtrace/libcygtrace.a" -lpthread -Wl,-Map="$dir/prog.map" || fail "link"
"$PAGEIN" --granularity=function --output="$PWD/t.trace" -- "./$dir/prog" > /dev/null 2> err || fail "pagein: $(head -3 err)"
CYGTRACE_DIR=$PWD "./$dir/prog" > /dev/null || fail "the cygtrace program"
cyg=(cygtrace.*)

check() { # NAME FILE: parses, names the format, version 1, and holds the Latin-1 folder
	python3 - "$1" "$2" <<'EOF2' || fail "$1: $(head -c 300 "$2")"
import json, sys
name, path = sys.argv[1], sys.argv[2]
doc = json.load(open(path, encoding="utf-8"))
assert doc.get("format") == name, "format is %r" % doc.get("format")
assert doc.get("format_version") == 1, "format_version is %r" % doc.get("format_version")
text = json.dumps(doc, ensure_ascii=False)
assert "caf\u00e9" in text, "the folder's name is not there as \\u00e9"
EOF2
}
"$TOP/pagein/pagein-report" --format=json t.trace > report.json || fail "pagein-report"
check linkopt-pagein-report report.json
"$TOP/cygtrace/cygtrace-resolve" --format=json "${cyg[0]}" > resolve.json 2> /dev/null || fail "cygtrace-resolve"
check linkopt-cygtrace-resolve resolve.json
"$DEPORDER" --format=json -e main "$dir/prog.o" > order.json 2> err || fail "deporder: $(head -3 err)"
check linkopt-deporder order.json
# the trace-match statistics, and --evaluate's rows
link=(--cc -- gcc -o "$dir/prog" "$dir/prog.o" "$TOP/cygtrace/libcygtrace.a" -lpthread)
"$DEPORDER" -q --granularity=section --trace t.trace --map "$dir/prog.map" --emit=gnu-ld --stats-json stats.json \
	"${link[@]}" > order.ld 2> err || fail "deporder --stats-json: $(head -3 err)"
check linkopt-deporder-stats stats.json
"$DEPORDER" -q --granularity=section --trace t.trace --map "$dir/prog.map" --evaluate --stats-json eval.json \
	"${link[@]}" > eval.txt 2> err || fail "deporder --evaluate --stats-json: $(head -3 err)"
check linkopt-deporder-stats eval.json
python3 - stats.json eval.json eval.txt <<'EOF2' || fail "the statistics: $(cat stats.json eval.json)"
import json, sys
s = json.load(open(sys.argv[1]))
t = s["traces"][0]
assert t["records"] > 0 and t["matched"] > 0 and 0.9 <= t["match_rate"] <= 1, t
e = json.load(open(sys.argv[2]))
row = e["evaluate"][0]
text = [l.split() for l in open(sys.argv[3]) if not l.startswith("trace")][0]
# the JSON says what the text says: code pages now and ordered
assert [row["code_pages_now"], row["code_pages_ordered"]] == [int(text[1]), int(text[2])], (row, text)
assert e["read_ahead_kb"] == 128 and "cold_pages_read_now" in row, row
EOF2
exit 0
