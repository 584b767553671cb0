#!/bin/bash
# mk/startup.mk with STARTUP_PLACEMENT=best: one switch gives the search
# of linkopt-startup --placement=best (STARTUP_WORKLOAD_1 a second
# training workload, STARTUP_HELD_OUT_1 a held-out one): a layout is
# chosen and named, the table kept in .linkopt/prog.best.txt, the program
# prints the same and touches fewer code pages; make startup again does
# nothing, make startup-check passes it, and with other candidates left out searches again;
# STARTUP_BEST_WITHOUT leaves candidates out; a placement that is
# not one, and a STARTUP_BEST_WITHOUT word that is not a kind of
# candidate (or without best), are refused.  STARTUP_REQUEST_PAGES reaches
# the search: with 0 it ranks by pages alone (this program's start-up
# reads 26 pages in 2 requests, which no layout beats when, by default,
# each request counts as 32 pages: the search keeps the plain link), and
# one that is no number, or without best, is refused.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make

startup_project
gcc -o plain main.o libwork.a || fail "the plain link"
run_ok want.out ./plain x
# BOLT's and the segments' candidates left out: linkopt-startup's own
# search of them is t-startup-best's
args=(STARTUP_PLACEMENT=best 'STARTUP_WORKLOAD_1=$(STARTUP_PROGRAM) a b' 'STARTUP_HELD_OUT_1=$(STARTUP_PROGRAM) x y z'
	'STARTUP_CHECK=test ! -e check-fails' STARTUP_REQUEST_PAGES=0)
make -s startup "${args[@]}" 'STARTUP_BEST_WITHOUT=segments bolt' > make.out 2>&1 ||
	fail "make startup STARTUP_PLACEMENT=best: $(tail -20 make.out)"
grep -Eq '^[ *] +[a-z-]+\+(bolt|seg)' make.out && fail "STARTUP_BEST_WITHOUT=segments bolt searched them: $(cat make.out)"
expect_grep '^[ *] +data-first\+relr ' make.out
expect_grep '^chosen: [a-z+-]' make.out
grep -q '^chosen: the plain link' make.out && fail "the search kept the plain link: $(cat make.out)"
[[ -s .linkopt/prog.best.txt && -s .linkopt/prog.state ]] || fail "no search records: $(ls -a .linkopt)"
grep -q -- '--held-out' make.out && fail "the options leaked into the output"
grep -q 'each read request counted as' make.out && fail "STARTUP_REQUEST_PAGES=0 did not reach the search: $(cat make.out)"
row=$(grep '^\*' make.out) || fail "no row marked chosen"
read -r _ name code_train code_held _ <<< "$row"
plain=$(awk '$1 == "plain" { print $5 }' make.out)
[[ -n $plain && $code_held != - ]] || fail "no figures: $row"
awk -v a="$code_train" -v p="$plain" 'BEGIN { exit !(a < p) }' ||
	fail "the chosen layout ($name) touches $code_train code pages, plain $plain"
expect_output want.out got.out "the chosen layout's output" ./prog x
make -s startup "${args[@]}" 'STARTUP_BEST_WITHOUT=bolt segments' > again.out 2>&1 ||
	fail "make startup again: $(tail -5 again.out)"
expect_grep '(unchanged)' again.out
# make startup-check passes the search's choice (its order made again
# from the training traces kept is the one it kept), whose first line
# names those traces
make -s startup-check "${args[@]}" 'STARTUP_BEST_WITHOUT=bolt segments' > verify.out 2>&1 ||
	fail "make startup-check after the search: $(tail -5 verify.out)"
expect_grep '^prog: start-up code pages [0-9]*, [0-9]* when ordered, .*: ok$' verify.out
# the order kept names the training traces kept, not the search's files
head -1 .linkopt/prog.gnu-ld.*.order > provenance.txt || fail "no order kept: $(ls .linkopt)"
expect_grep 'traces /.*/\.linkopt/prog\.train\.0\.traces/' provenance.txt
grep -q 'search\.[0-9]*\.traces' provenance.txt && fail "the order kept names the search's traces: $(cat provenance.txt)"
# a search left without other candidates is another search: with relr
# left out too it links and checks the plain program again (and the
# check, the same line, fails now: nothing is searched)
touch check-fails
status=0
make -s startup "${args[@]}" 'STARTUP_BEST_WITHOUT=bolt segments relr' > other.out 2>&1 || status=$?
((status != 0)) || fail "STARTUP_BEST_WITHOUT with relr too was taken as the search made: $(cat other.out)"
expect_grep 'the check fails with the plain outputs' other.out
status=0
make -s startup STARTUP_PLACEMENT=fastest > bad.out 2>&1 || status=$?
((status != 0)) || fail "STARTUP_PLACEMENT=fastest was taken"
expect_grep 'STARTUP_PLACEMENT = fastest: not one of head cold-start data-first best' bad.out
status=0
make -s startup STARTUP_PLACEMENT=best STARTUP_BEST_WITHOUT=pgo > bad.out 2>&1 || status=$?
((status != 0)) || fail "STARTUP_BEST_WITHOUT=pgo was taken"
expect_grep 'STARTUP_BEST_WITHOUT = pgo: not relr, bolt, segments, cut or cross' bad.out
status=0
make -s startup STARTUP_PLACEMENT=best STARTUP_REQUEST_PAGES=many > bad.out 2>&1 || status=$?
((status != 0)) || fail "STARTUP_REQUEST_PAGES=many was taken"
expect_grep 'STARTUP_REQUEST_PAGES = many: not a number of pages' bad.out
status=0
make -s startup STARTUP_PLACEMENT=head STARTUP_REQUEST_PAGES=0 > bad.out 2>&1 || status=$?
((status != 0)) || fail "STARTUP_REQUEST_PAGES without best was taken"
expect_grep 'STARTUP_REQUEST_PAGES is for STARTUP_PLACEMENT = best' bad.out
status=0
make -s startup STARTUP_PLACEMENT=head STARTUP_BEST_WITHOUT=bolt > bad.out 2>&1 || status=$?
((status != 0)) || fail "STARTUP_BEST_WITHOUT without best was taken"
expect_grep 'STARTUP_BEST_WITHOUT is for STARTUP_PLACEMENT = best' bad.out
exit 0
