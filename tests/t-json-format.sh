#!/bin/bash
# Every JSON output opens with its format name and version, and is valid
# JSON even when a path holds bytes that are not UTF-8 (a folder named in
# Latin-1): they come out as \u00XX.  Before, such a byte was copied raw
# and the document did not parse.
. "$TESTDIR/lib.sh"
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
"$PAGEIN" --granularity=function --out-file="$PWD/t.trace" -- "./$dir/prog" > /dev/null 2> err || fail "pagein: $(head -3 err)"
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
exit 0
