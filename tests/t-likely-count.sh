#!/bin/bash
# Counting mode on samples/likely: the header (likely-check cflags) and the
# preloaded runtime (likely-check run) count every hint site of a program, a
# DSO, four threads and a fork child exactly; report sorts and marks them.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
need gcc
S=$TOP/samples/likely

gcc -O2 -fPIC -shared $("$LC" cflags) -o libhints.so "$S/dso.c" || fail "cannot build the DSO"
gcc -O2 -Wall -Wextra -Werror $("$LC" cflags) -o sample "$S/main.c" -L. -Wl,-rpath,"$PWD" \
	-lhints -lpthread || fail "cannot build the sample"

# without the runtime the program runs as before and writes nothing
./sample > plain.out || fail "the sample fails without the runtime"
printf 'over 4333\ndso 10\n' > want.out
expect_same want.out plain.out "output without the runtime"
[[ -z $(ls likely-check.* 2>/dev/null) ]] || fail "wrote data without the runtime"

mkdir data
"$LC" run --dir data -- ./sample > run.out || fail "the sample fails under likely-check run"
expect_same want.out run.out "output under likely-check run"
ls data > files
expect_lines files 2 "one data file per process (parent and fork child)"

"$LC" report --threshold=20 data/likely-check.* > report || fail "report failed"
# correct incorrect % function file:line expression, most wrong first
sed -n '/correct  incorrect/,/^$/p' report | awk 'NF { print $1, $2, $3, $4, $5 }' |
	sed 's|[^ ]*/samples/likely/||' > table
cat > want <<'EOF2'
correct incorrect % function file:line
! 1000 9000 90.00 wrong
! 5000 5000 50.00 useless
! 500 500 50.00 forked
! 6667 3333 33.33 ranges
! 75000 25000 25.00 thread_main
9000 1000 10.00 ranges main.c:53
9900 100 1.00 right main.c:30
9990 10 0.10 dso_work dso.c:9
1 0 0.00 main main.c:89
EOF2
expect_same want table "the counted table"
expect_grep '^constant at compile time:' report
expect_grep '^ +1 +0 +0.00  main .*main.c:91  !!\(sizeof\(long\) == 8\) \(expect 1\)$' report
expect_grep '^never ran:' report
expect_grep '^  rare .*main.c:78  !!\(n > 0\) \(expect 1\)$' report
expect_grep '^11 hint sites: 9 ran, 1 constant, 1 never ran$' report

# the CI gate: exit 1 over the threshold, 0 under
status=0
"$LC" report --fail-over=90 data/likely-check.* > /dev/null 2> gate.err || status=$?
(( status == 0 )) || fail "--fail-over=90 exited $status"
status=0
"$LC" report --fail-over=89 data/likely-check.* > /dev/null 2> gate.err || status=$?
(( status == 1 )) || fail "--fail-over=89 exited $status, expected 1"
expect_grep '^likely-check: 1 hint site wrong more than 89% of the time$' gate.err

"$LC" report --format=json data/likely-check.* > report.json || fail "json report failed"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' report.json 2>/dev/null ||
	{ command -v python3 > /dev/null && fail "the json report does not parse"; }
expect_grep '"function":"thread_main","expression":"!!\(i % 4 != 0\)","expect":1,"state":"ran","correct":75000,"incorrect":25000' report.json

# a hint inside a project macro: per expansion site above, summed per macro
(cd "$S" && "$LC" macros --output "$OLDPWD/macros.data" main.c) || fail "macros failed"
"$LC" report data/likely-check.* macros.data > by-macro || fail "report with macros failed"
expect_grep '^by macro: correct incorrect % sites macro$' by-macro
expect_grep '^ +15667 +4333 +21.66 +2  CHECK_RANGE \(hints.h:5\)$' by-macro

# runs merge: a second run doubles every count
"$LC" run --dir data -- ./sample > /dev/null || fail "second run failed"
"$LC" report data/likely-check.* > report2 || fail "report of two runs failed"
expect_grep '^ +150000 +50000 +25.00  thread_main ' report2
expect_grep '^ +19980 +20 +0.10  dso_work ' report2
