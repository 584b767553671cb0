#!/bin/bash
# Before and after traces of one program relinked, against traces of two
# programs, in linkopt report and pagein-report alike.  The real case is
# linkopt-startup's (make startup): .linkopt/prog.trace and
# .linkopt/prog.after.trace of prog, relinked in place (the same path,
# another build-id), prog's traced build kept as .linkopt/prog.default.
# Both tools accept the pair and say how the programs stand (relinked in
# place, both build-ids); linkopt report reads the traced build from the
# copy beside the trace (by its build-id; --binary names one elsewhere)
# and its figures are pagein-report's.  The trace of a copy of the ordered
# program under another name and path is refused by both (exit status 1,
# both paths named, no page written) unless --same-program says it is prog
# relinked: then pagein-report's row is labelled with both names.  A copy
# of the same name elsewhere is prog relinked too.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/report-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_report
need make
REPORT=$TOP/pagein/pagein-report

startup_project
make -s startup > make.out 2>&1 || fail "make startup: $(tail -5 make.out)"
before=.linkopt/prog.trace after=.linkopt/prog.after.trace
[[ -f $before && -f $after && -x .linkopt/prog.default ]] ||
	fail "make startup left no $before, $after or .linkopt/prog.default: $(ls -a .linkopt)"
build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
plain_id=$(build_id .linkopt/prog.default) ordered_id=$(build_id prog)
[[ -n $plain_id && -n $ordered_id && $plain_id != "$ordered_id" ]] ||
	fail "the plain and ordered links have build-ids '$plain_id' and '$ordered_id'"
relinked="$PWD/prog relinked in place (build-id $plain_id, then $ordered_id)"

# pagein-report: accepted, said so
run_ok pages.out "$REPORT" "$before" "$after"
expect_empty pages.out.err "pagein-report's standard error"
expect_grep "^main program: ${relinked//[()]/.}\$" pages.out "pagein-report's relation line"
read -r code_before code_after < <(awk '$1 == "prog" { print $2, $3 }' pages.out)
[[ -n $code_before && -n $code_after ]] || fail "no row for prog in: $(cat pages.out)"
run_ok pages.json "$REPORT" --format=json "$before" "$after"
expect_grep '\], "relation": "relinked-in-place"\}$' pages.json "pagein-report's JSON"

# linkopt report: accepted, the traced build read from .linkopt/prog.default
run_ok report.out "$LINKOPT" report "$before" "$after" -o report.html
expect_empty report.out.err "linkopt report's standard error"
expect_grep "<tr data-relation=\"relinked-in-place\"><th>main program</th><td>${relinked//[()]/.}</td></tr>" \
	report.html "the page's relation row"
side_of report.html before > before.side
side_of report.html after > after.side
expect_grep 'read from <code>\.linkopt/prog\.default</code>' before.side "the before side"
expect_no_grep 'read from' after.side "the after side"
[[ $(figure report.html before code-pages) == "$code_before" && $(figure report.html after code-pages) == "$code_after" ]] ||
	fail "linkopt report's code pages $(figure report.html before code-pages) -> $(figure report.html after code-pages), pagein-report's $code_before -> $code_after"

# the traced build elsewhere: only through --binary
mkdir kept && mv .linkopt/prog.default kept/plain
expect_exit 1 gone.out "$LINKOPT" report "$before" "$after" -o gone.html
expect_grep "^linkopt: \\.linkopt/prog\\.trace: no file has the build-id $plain_id of the traced $PWD/prog: .* give a copy of the traced file with --binary\$" \
	gone.out.err "linkopt report without the traced build"
[[ ! -e gone.html ]] || fail "a refused report wrote gone.html"
run_ok kept.out "$LINKOPT" report --binary kept/plain "$before" "$after" -o kept.html
expect_grep 'read from <code>kept/plain</code>' kept.html "the report with --binary"

# another name and path: refused unless --same-program
mkdir other && cp prog other/prog-ordered
"$PAGEIN" --output="$PWD/renamed.trace" -- ./other/prog-ordered > /dev/null 2>&1 || fail "pagein on other/prog-ordered"
two="two programs: before's main program is $PWD/prog \\(build-id $plain_id\\), after's $PWD/other/prog-ordered \\(build-id $ordered_id\\), neither the same path nor the same name"
expect_exit 1 refused.out "$REPORT" "$before" renamed.trace
expect_grep "^pagein-report: \\.linkopt/prog\\.trace, renamed\\.trace: $two: " refused.out.err "pagein-report on two programs"
expect_empty refused.out "pagein-report's output on two programs"
expect_exit 1 refused.out "$LINKOPT" report "$before" renamed.trace -o refused.html
expect_grep "^linkopt: \\.linkopt/prog\\.trace, renamed\\.trace: $two: " refused.out.err "linkopt report on two programs"
[[ ! -e refused.html ]] || fail "a refused report wrote refused.html"

run_ok renamed.out "$REPORT" --same-program "$before" renamed.trace
expect_grep "^main program: $PWD/prog relinked as $PWD/other/prog-ordered, as given \\(build-id $plain_id, then $ordered_id\\)\$" \
	renamed.out "pagein-report --same-program"
expect_grep '^  prog -> prog-ordered +[0-9]+ +[0-9]+ ' renamed.out "the main program's row"
run_ok renamed-report.out "$LINKOPT" report --same-program --binary kept/plain "$before" renamed.trace -o renamed.html
expect_grep '<tr data-relation="relinked-renamed">' renamed.html "linkopt report --same-program"

# the same name elsewhere
mkdir elsewhere && cp prog elsewhere/prog
"$PAGEIN" --output="$PWD/elsewhere.trace" -- ./elsewhere/prog > /dev/null 2>&1 || fail "pagein on elsewhere/prog"
run_ok elsewhere.out "$REPORT" "$before" elsewhere.trace
expect_grep "^main program: $PWD/prog relinked as $PWD/elsewhere/prog, of the same name " elsewhere.out \
	"pagein-report on the same name elsewhere"
exit 0
