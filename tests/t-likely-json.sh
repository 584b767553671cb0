#!/bin/bash
# gcov's JSON through likely-check profile: a source folder named with
# characters beyond Latin-1 (U+4E2D, and U+1F600 as a surrogate pair)
# written as \u escapes decodes to the file system's UTF-8, so the site
# gets gcov's counts, as from gcov's own output; a Latin-1 name that gcc
# writes as raw bytes is kept; malformed JSON is refused with its line and
# column.
# The JSON the tools write escapes control characters and leaves UTF-8 alone.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC ]] || fail "likely-check is not built (run make)"
need gcc
name=$'\xe4\xb8\xad\xf0\x9f\x98\x80' # U+4E2D U+1F600 in UTF-8
escaped='\u4e2d\ud83d\ude00'

mkdir "$name" bin
cat > "$name/u.c" <<EOF2
int hinted(int x)
{
	if (__builtin_expect(x > 5, 0))
		return 1;
	return 0;
}
int main(int argc, char **argv)
{
	int i, s = 0;

	for (i = 0; i < 10; i++)
		s += hinted(i + argc - 1);
	(void)argv;
	return s == 4 ? 0 : 1;
}
EOF2

# A gcov that prints the document the test wrote.
cat > bin/gcov <<'EOF2'
#!/bin/sh
cat "$GCOV_JSON"
EOF2
chmod +x bin/gcov

# gcov's document for FILE (as written in JSON): x > 5 was true 4 times in
# 10 (expected false), so 6 right, 4 wrong.
gcov_json() {
	cat <<EOF2
{"format_version": "1", "gcc_version": "12.2.0",
 "files": [{"file": "$1",
   "functions": [{"name": "hinted", "demangled_name": "hinted", "start_line": 1, "end_line": 6,
                  "execution_count": 10}],
   "lines": [{"line_number": 3, "count": 10, "unexecuted_block": false, "function_name": "hinted",
              "branches": [{"count": 4, "throw": false, "fallthrough": false},
                           {"count": 6, "throw": false, "fallthrough": true}]}]}]}
EOF2
}
gcov_json "$escaped/u.c" > escaped.json
GCOV_JSON=$PWD/escaped.json PATH=$PWD/bin:$PATH "$LC" profile --out escaped.data "$name/u.c" 2> escaped.err ||
	{ cat escaped.err >&2; fail "profile of the escaped document failed"; }
expect_empty escaped.err "profile of the escaped document: stderr"
printf 'site 6 4 0 0 3\t%s/u.c\thinted\tx > 5\n' "$name" > want
grep '^site' escaped.data > got
expect_same want got "the site read through \\u escapes"

# gcc writes a file name that is not UTF-8 as its bytes, unescaped: kept.
latin=$'lat\xe9'
mkdir "$latin"
cp "$name/u.c" "$latin/u.c"
gcov_json "$latin/u.c" > raw.json
GCOV_JSON=$PWD/raw.json PATH=$PWD/bin:$PATH "$LC" profile --out raw.data "$latin/u.c" 2> raw.err ||
	{ cat raw.err >&2; fail "profile of a Latin-1 file name failed"; }
printf 'site 6 4 0 0 3\t%s/u.c\thinted\tx > 5\n' "$latin" > want-raw
grep '^site' raw.data > got
expect_same want-raw got "a Latin-1 file name, unescaped"

# gcc's own gcov writes the same names as raw UTF-8: the same site.
if command -v gcov > /dev/null; then
	gcc -O0 --coverage -c -o "$name/u.o" "$name/u.c" && gcc --coverage -o u "$name/u.o" ||
		fail "cannot build the coverage program"
	./u || fail "the coverage program failed"
	"$LC" profile --out gcov.data "$name/u.c" 2> gcov.err || { cat gcov.err >&2; fail "profile with gcov failed"; }
	grep '^site' gcov.data > got
	expect_same want got "the site read from gcov's own output"
fi

# JSON out: the file name as it is.
"$LC" report --format=json escaped.data > report.json || fail "report --format=json failed"
expect_grep "^\\{\"file\":\"$name/u\\.c\",\"line\":3,\"function\":\"hinted\",\"expression\":\"x > 5\"," \
	report.json "report --format=json"
if command -v jq > /dev/null; then
	[[ $(jq -r '.sites[0].file' report.json) == "$name/u.c" ]] || fail "jq reads another file name"
fi

# Malformed documents: where and why, status 1, nothing written.
bad() { # NAME DOCUMENT EXPECTED-MESSAGE
	printf '%s' "$2" > "$1.json"
	local status=0
	GCOV_JSON=$PWD/$1.json PATH=$PWD/bin:$PATH "$LC" profile --out "$1.data" "$name/u.c" 2> "$1.err" || status=$?
	((status == 1)) || fail "$1: exit status $status, expected 1"
	[[ ! -e $1.data ]] || fail "$1: the data file was written"
	printf '%s\n' "likely-check: $name/u.c: cannot parse gcov's JSON output: $3" \
		"likely-check: $1.data: not written: a source failed, and the table would be partial" > "$1.want"
	expect_same "$1.want" "$1.err" "$1: the message"
}
bad comma $'{"files": [\n  {"file": "'"$name"'", "lines": [1,, 2]}\n]}\n' \
	"line 2 column 30: unexpected character"
bad colon $'{"files" []}' "line 1 column 10: object property name separator ':' expected"
bad cut $'{"files": [\n' "line 2 column 1: unexpected end of data"
bad trailing $'{"files": []}\n{"files": []}\n' "line 2 column 1: trailing text after the value"
bad empty '' "line 1 column 1: unexpected end of data"

# Control characters in a name: \u escapes in the JSON the tools write.
if [[ -x $DEPORDER ]]; then
	printf 'int main(void) { return 0; }\n' > m.c
	ctl=$'c\x01\x1f\t'"$name"'.o'
	gcc -c -o "$ctl" m.c || fail "cannot compile m.c"
	"$DEPORDER" -q --format=json -e main -- "$ctl" > order.json 2> /dev/null || fail "deporder --format=json failed"
	expect_grep "\"unit\": \"c\\\\u0001\\\\u001f\\\\u0009$name\\.o\"" order.json "deporder --format=json"
	if command -v jq > /dev/null; then
		[[ $(jq -r '.units[0].unit' order.json) == "$ctl" ]] || fail "jq reads another unit name"
	fi
fi
exit 0
