#!/bin/bash
# Paths round-trip through both trace formats whatever they hold: a
# program in a folder whose name has a blank, a tab, a newline, or a
# quote, a backslash, a control character and a byte that is not UTF-8,
# traced by pagein and by cygtrace, reported by pagein-report, resolved by
# cygtrace-resolve and ordered by deporder through its link map (where GNU
# ld writes the names as they are), GNU ld reading deporder's script (whose
# file patterns stand '?' for what ld's lexer cannot take).  Before, the object table was read
# with sscanf %s: cygtrace-resolve resolved none of the records and exited
# 0, pagein-report left the program out, deporder blamed staleness.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
CYG=$TOP/cygtrace
REPORT=$TOP/pagein/pagein-report
[[ -f $CYG/libcygtrace.a && -x $CYG/cygtrace-resolve ]] || fail "cygtrace is not built"

cat > w.c <<'EOF2'
__attribute__((noinline)) int work(int x) { return x * 2 + 1; }
EOF2
cat > m.c <<'EOF2'
#include <stdio.h>
int work(int);
__attribute__((noinline)) int helper(int x) { return work(x) + 3; }
int main(void) { printf("%d\n", helper(4)); return 0; }
EOF2

# Each folder, and its program's path as the traces quote it.
folders=("a dir" $'t\tb' $'n\nl' $'q"\\\xff\x01')
quoted=("\"$PWD/a dir/" "\"$PWD/t\\tb/" "\"$PWD/n\\nl/" "\"$PWD/q\\\"\\\\"$'\xff'"\\x01/")

for i in "${!folders[@]}"; do
	d=$PWD/${folders[$i]}
	q=${quoted[$i]}
	what="folder $(printf '%q' "${folders[$i]}")"
	mkdir "$d" && cp m.c w.c "$d/" || fail "$what: cannot make it"
	(cd "$d" && gcc -O1 -g -ffunction-sections -c m.c w.c && ar rcs libw.a w.o) || fail "$what: cannot compile"
	gcc -o "$d/prog" "$d/m.o" "$d/libw.a" -Wl,-Map="$d/prog.map" || fail "$what: cannot link"
	gcc -O1 -finstrument-functions -o "$d/prog-cyg" "$d/m.c" "$d/w.c" "$CYG/libcygtrace.a" ||
		fail "$what: cannot link with libcygtrace.a"

	# pagein: the object table names the program, and the report counts
	# its pages.
	"$PAGEIN" --granularity=function --output="$PWD/p$i.trace" -- "$d/prog" > /dev/null 2> err ||
		fail "$what: pagein: $(head -3 err)"
	"$REPORT" "p$i.trace" > report 2> err || fail "$what: pagein-report: $(head -3 err)"
	P="  ${q}prog\"" awk 'index($0, ENVIRON["P"]) == 1 && $(NF - 1) > 0 { found = 1 } END { exit !found }' report ||
		fail "$what: pagein-report does not count the program's code pages: $(cat report)"

	# cygtrace: every first entry resolves in the program.
	mkdir "cyg$i"
	(cd "$d" && CYGTRACE_DIR=$OLDPWD/cyg$i ./prog-cyg > /dev/null) || fail "$what: the instrumented program failed"
	"$CYG/cygtrace-resolve" "cyg$i"/cygtrace.* > resolved 2> err || fail "$what: cygtrace-resolve: $(head -3 err)"
	expect_grep ', 3 first entries: 3 resolved, 0 dropped .* 0 outside any object file' err "$what: cygtrace-resolve's summary"
	for f in main helper work; do
		grep -qF " ${q}prog-cyg\" .text $f" resolved || fail "$what: cygtrace-resolve has no line for $f: $(cat resolved)"
	done

	# deporder: the trace matches the link through its map, and GNU ld
	# reads the script and orders the program by it.
	"$DEPORDER" -q --granularity=section --trace "p$i.trace" --map "$d/prog.map" --emit=gnu-ld \
		--cc -- gcc -o "$d/prog" "$d/m.o" "$d/libw.a" > order.ld 2> err || fail "$what: deporder: $(head -5 err)"
	expect_grep '^deporder: p[0-9]\.trace: 5 records of .* 5 matched an input section of the link \(100\.0%\)' err \
		"$what: deporder's match"
	gcc -o "$d/prog-ordered" "$d/m.o" "$d/libw.a" -Wl,-T,order.ld -Wl,-Map=ordered.map 2> err ||
		fail "$what: GNU ld does not read the script: $(head -3 err)"
	[[ $("$d/prog-ordered") == 12 ]] || fail "$what: the ordered program does not print 12"
	awk '$1 == ".text" { text = 1 } text && $1 ~ /^\.text\./ { print $1 }' ordered.map | head -3 > first
	printf '%s\n' .text.main .text.helper .text.work > want
	expect_same want first "$what: the first sections of the ordered .text"

	# The traces quote the path.
	grep -qF "# object ${q}prog\" build-id " "p$i.trace" || fail "$what: the trace does not name the program as ${q}prog\""
	grep -qF "# object ${q}prog-cyg\" build-id " "cyg$i"/cygtrace.* ||
		fail "$what: the cygtrace file does not name the program as ${q}prog-cyg\""
done

# The readers: a version 1 trace with a blank in a path still reads; a
# quoted field cut short and a version they do not know are refused.
printf '%s\n' '# pagein 1 (linkopt 0.1)' '# object /x y/prog build-id none base 0x1000' \
	'# segment /x y/prog 0x1000-0x3000' '   1 0x1000 C 0 0x1010: main (in /x y/prog)' > v1.trace
"$REPORT" v1.trace > report 2> err || fail "a version 1 trace: $(head -3 err)"
expect_grep '^  "/x y/prog" +1 +0$' report "pagein-report of a version 1 trace"
printf '%s\n' '# cygtrace 2 (linkopt 0.1)' '# object "/x y/prog build-id none base 0x1000' > open-quote.trace
printf '%s\n' '# pagein 3 (linkopt 9)' > v3.trace
# status|program|file|pattern
while IFS='|' read -r want program file pattern; do
	status=0
	"$program" "$file" > out 2> err || status=$?
	((status == want)) || fail "$(basename "$program") $file: status $status, expected $want"
	expect_grep "$pattern" err "$(basename "$program") $file"
done <<EOF2
1|$CYG/cygtrace-resolve|open-quote.trace|^cygtrace-resolve: open-quote\.trace: line 2: a quoted field without its closing quote$
1|$REPORT|v3.trace|^pagein-report: v3\.trace: a pagein trace of format version 3, which this reader does not know
EOF2
exit 0
