#!/bin/bash
# File names beyond ASCII through likely-check profile and the JSON the
# tools write: a source folder named with characters beyond Latin-1
# (U+4E2D, U+1F600) and one with a Latin-1 byte that is not UTF-8 get their
# counts (gcc's dumps name them as they are); report --format=json leaves
# UTF-8 alone and writes a stray byte as \u00XX; deporder's JSON escapes
# control characters.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC ]] || fail "likely-check is not built (run make)"
need gcc
name=$'\xe4\xb8\xad\xf0\x9f\x98\x80' # U+4E2D U+1F600 in UTF-8

mkdir "$name"
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

# x > 5 was true 4 times in 10 (expected false): 6 right, 4 wrong, whatever
# bytes the folder's name holds: gcc's dumps name it as it is.
profile_in() { # FOLDER
	gcc -O0 --coverage -c -o "$1/u.o" "$1/u.c" && gcc --coverage -o "$1/u" "$1/u.o" ||
		fail "cannot build the coverage program in $1"
	"$1/u" || fail "the coverage program in $1 failed"
	run_ok "$1.profile" "$LC" profile --output "$1.data" "$1/u.c"
	expect_empty "$1.profile.err" "profile in $1: stderr"
	printf 'site 6 4 0 0 3\t%s/u.c\thinted\tx > 5\n' "$1" > "$1.want"
	grep '^site' "$1.data" > "$1.got"
	expect_same "$1.want" "$1.got" "the site in $1"
}
profile_in "$name"
latin=$'lat\xe9'
mkdir "$latin"
cp "$name/u.c" "$latin/u.c"
profile_in "$latin"

# JSON out: the UTF-8 name as it is, the Latin-1 byte as \u00e9.
run_ok report.json "$LC" report --format=json "$name.data"
expect_grep "^\\{\"file\":\"$name/u\\.c\",\"line\":3,\"function\":\"hinted\",\"expression\":\"x > 5\"," \
	report.json "report --format=json"
if command -v jq > /dev/null; then
	[[ $(jq -r '.sites[0].file' report.json) == "$name/u.c" ]] || fail "jq reads another file name"
fi
run_ok latin.json "$LC" report --format=json "$latin.data"
expect_grep '^\{"file":"lat\\u00e9/u\.c",' latin.json "report --format=json of a Latin-1 name"

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
