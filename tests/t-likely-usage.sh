#!/bin/bash
# likely-check's exit statuses and messages: 2 for wrong usage, 1 for bad
# input, 0 otherwise; a program whose hint macros expand to nothing (as
# SQLite's do) is reported as having no hint site, not as an empty table.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC ]] || fail "likely-check is not built (run make)"

printf 'likely-check 1\nsite 3 1 0 1 7\ta.c\tf\t!!(x)\n' > good.data
printf 'hello\n' > bad.data
printf 'likely-check 1\nsite 3 x\n' > broken.data

# status|arguments|pattern on stderr (empty: stderr must be empty)
while IFS='|' read -r want args pattern; do
	[[ -z $want ]] && continue
	status=0
	eval "\"\$LC\" $args" > out 2> err < /dev/null || status=$?
	(( status == want )) || { cat err >&2; fail "likely-check $args: exit status $status, expected $want"; }
	if [[ -n $pattern ]]; then
		expect_grep "$pattern" err "stderr of likely-check $args"
	else
		expect_empty err "stderr of likely-check $args"
	fi
done <<'EOF2'
2||^likely-check: no command given$
2|bogus|^likely-check: unknown command 'bogus'$
2|report|^likely-check: report: no data file given$
2|report --threshold=abc good.data|^likely-check: --threshold: 'abc' is not a percentage
2|report --fail-over=101 good.data|^likely-check: --fail-over: '101' is not a percentage
2|report --format=xml good.data|^likely-check: --format: 'xml' is not text or json$
2|report --frobnicate good.data|^likely-check: unrecognized option '--frobnicate'$
2|compare good.data|^likely-check: compare: needs two data files
2|run|^likely-check: run: no command given$
2|cflags extra|^likely-check: too many arguments$
2|profile|^likely-check: profile: no source file given$
1|report missing.data|^likely-check: missing.data: cannot open: No such file or directory$
1|report bad.data|^likely-check: bad.data: not a likely-check data file \(first line 'hello'\)$
1|report broken.data|^likely-check: broken.data:2: malformed line$
1|report good.data missing.data|^likely-check: missing.data: cannot open
1|report --fail-over=20 good.data|^likely-check: 1 hint site wrong more than 20% of the time$
0|report --fail-over=25 good.data|
0|report good.data|
0|compare good.data good.data|
0|--help|
0|--version|
EOF2

"$LC" report good.data > out || fail "report failed"
expect_grep '^ +3 +1 +25.00  f a.c:7  !!\(x\) \(expect 1\)$' out

need gcc
cat > nohints.c <<'EOF2'
/* SQLite's way: the hint macros expand to their argument alone */
#define likely(X) (X)
#define unlikely(X) (X)
int f(int x) { return likely(x > 0) ? 1 : unlikely(x < -5) ? 2 : 3; }
EOF2
"$LC" profile --output none.data nohints.c || fail "profile of a file without hints failed"
printf 'likely-check 1\nsource profile\n' > want
expect_same want none.data "profile data of a file without hints"
"$LC" report none.data > out || fail "report of no sites failed"
expect_grep '^no __builtin_expect site in the input: ' out
expect_grep 'expand to nothing \(as SQLite.s do\)$' out

# A profile whose sources cannot all be read does not replace --output's file.
printf 'kept\n' > kept.data
status=0
"$TOP/likely-check/likely-check" profile --output kept.data no-such-source.c > /dev/null 2> partial.err || status=$?
((status == 1)) || fail "profile with a missing source: status $status"
[[ $(cat kept.data) == kept ]] || fail "profile with a missing source replaced kept.data"
ls kept.data.tmp* > /dev/null 2>&1 && fail "a temporary file was left behind"
exit 0
