#!/bin/bash
# pagein-report --read-ahead-kb: the file pages and read requests of a
# cold start of each traced object, the kernel model of deporder
# --evaluate replayed over the trace's own first touches, so that a binary
# no map describes (BOLT's output) gets the figure too.  Without
# read-ahead it is the pages the trace touches, counted independently
# through readelf's program headers; with read-ahead it is deporder
# --evaluate's figure for the same trace and link, and the figure deporder
# predicted for the order is what the ordered program's own trace gives.
# With --read-requests, each request the model made: the requests add up
# to the figure, none reads a page twice, together they hold every page
# the run touched, the first is execve's read(2) of page 0, and without
# read-ahead each reads one page.  A file relinked since the trace is
# refused by build-id (exit 1, the main program's), in JSON the figure is
# an object (with its requests under --read-requests), and two traces with
# --read-ahead-kb, or --read-requests without it, are usage errors.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need readelf
REPORT=$TOP/pagein/pagein-report

# reads TRACE KB: "PAGES REQUESTS" of the trace's main program
reads() {
	"$REPORT" --read-ahead-kb="$2" "$1" > report.out 2> report.err || fail "pagein-report --read-ahead-kb=$2 $1: $(cat report.err)"
	awk 'NR == 3 { gsub(/[()]/, "", $5); print $4, $5 }' report.out
}

coldstart_program
file_pages trace "$PWD/prog" > now.pages
file_pages ordered.trace "$PWD/ordered" > ordered.pages
read -r pages requests <<< "$(reads trace 0)"
[[ $pages == "$(wc -l < now.pages)" ]] ||
	fail "--read-ahead-kb=0: $pages pages for prog, its trace touches $(wc -l < now.pages): $(cat report.out)"
read -r pages requests <<< "$(reads ordered.trace 0)"
[[ $pages == "$(wc -l < ordered.pages)" ]] || fail "--read-ahead-kb=0: $pages pages for the ordered program, $(wc -l < ordered.pages) touched"
for kb in 0 32 128; do
	read -r p_now p_ordered r_now r_ordered <<< "$(predict $kb)"
	read -r pages requests <<< "$(reads trace $kb)"
	[[ "$pages $requests" == "$p_now $r_now" ]] ||
		fail "--read-ahead-kb=$kb: $pages pages in $requests requests, deporder --evaluate says $p_now in $r_now"
	read -r pages requests <<< "$(reads ordered.trace $kb)"
	echo "$kb KiB: prog $p_now, ordered $pages (deporder predicted $p_ordered)"
	((kb != 0)) || [[ $pages == "$p_ordered" ]] ||
		fail "--read-ahead-kb=0: $pages pages for the ordered program, deporder predicted $p_ordered"
done

# --read-requests: the main program's requests, "FIRST LAST PAGES CAUSE..."
requests() {
	"$REPORT" --read-ahead-kb="$1" --read-requests trace > requests.out 2> requests.err ||
		fail "pagein-report --read-ahead-kb=$1 --read-requests: $(cat requests.err)"
	awk -v prog="$PWD/prog" '
		/^  read requests of a cold start of / { on = index($0, " of " prog " at ") > 0; next }
		on && /^    pages / { split($2, r, "-"); n = $3; $1 = $2 = $3 = ""; sub(/^ +/, ""); print r[1], r[2], n, $0; next }
		on && !/^    pages / { on = 0 }' requests.out
}
for kb in 0 32 128; do
	read -r pages count <<< "$(reads trace $kb)"
	requests $kb > requests.list
	[[ $(wc -l < requests.list) == "$count" ]] ||
		fail "--read-ahead-kb=$kb --read-requests: $(wc -l < requests.list) requests listed for prog, the figure says $count: $(cat requests.out)"
	read -r sum bad < <(awk '{ s += $3; if ($3 != $2 - $1 + 1) b++ } END { print s + 0, b + 0 }' requests.list)
	((sum == pages && bad == 0)) ||
		fail "--read-ahead-kb=$kb --read-requests: the requests read $sum pages ($bad ranges miscounted), the figure says $pages"
	awk '{ for (p = $1; p <= $2; p++) print p }' requests.list | sort -n > requested.pages
	[[ -z $(uniq -d requested.pages) ]] || fail "--read-ahead-kb=$kb: pages read twice: $(uniq -d requested.pages | head -5)"
	missing=$(comm -23 <(sort -u now.pages) <(sort -u requested.pages))
	[[ -z $missing ]] || fail "--read-ahead-kb=$kb: touched pages no request read: $missing"
	head -1 requests.list | grep -q '^0 [0-9]* [0-9]* *read(2) at page 0$' ||
		fail "--read-ahead-kb=$kb: the first request is not execve's read of page 0: $(head -1 requests.list)"
	if ((kb == 0)); then
		awk '$3 != 1' requests.list | grep -q . && fail "--read-ahead-kb=0: a request of more than one page: $(awk '$3 != 1' requests.list | head -3)"
	fi
done
((kb == 128)) && grep -q 'the window around it\|the next window' requests.list ||
	fail "--read-ahead-kb=128: no request of a window: $(cat requests.list)"

# JSON: the figure per object
"$REPORT" --format=json --read-ahead-kb=128 trace > report.json || fail "pagein-report --format=json --read-ahead-kb=128"
read -r p_now p_ordered r_now r_ordered <<< "$(predict 128)"
expect_grep "\"code_pages\": [0-9]+, \"data_pages\": [0-9]+, \"cold_start\": \\{\"read_ahead_kb\": 128, \"pages_read\": $p_now, \"read_requests\": $r_now\\}" \
	report.json "the JSON report"
"$REPORT" --format=json --read-ahead-kb=128 --read-requests trace > requests.json ||
	fail "pagein-report --format=json --read-ahead-kb=128 --read-requests"
expect_grep "\"pages_read\": $p_now, \"read_requests\": $r_now, \"requests\": \\[\\{\"first_page\": 0, \"pages\": [0-9]+, \"cause\": \"read\", \"page\": 0\\}" \
	requests.json "the JSON report's requests"

# a file relinked since its trace is not the traced one
gcc -o prog main.o work.o -Wl,--build-id=sha1 -Wl,-z,norelro || fail "the relink"
status=0
"$REPORT" --read-ahead-kb=128 trace > report.out 2> report.err || status=$?
((status == 1)) || fail "a relinked program: exit status $status, not 1"
expect_grep "^pagein-report: trace: no cold-start figure: .*/prog: not the traced file \\(the trace has build-id [0-9a-f]+, the file [0-9a-f]+\\)" \
	report.err "a relinked program"
expect_grep '^  .*/prog +[0-9]+ +[0-9]+  -$' report.out "the relinked program's row"

status=0
"$REPORT" --read-ahead-kb=128 trace ordered.trace > /dev/null 2> report.err || status=$?
((status == 2)) || fail "two traces with --read-ahead-kb: exit status $status, not 2"
expect_grep 'takes one trace' report.err "two traces with --read-ahead-kb"
status=0
"$REPORT" --read-requests trace > /dev/null 2> report.err || status=$?
((status == 2)) || fail "--read-requests without --read-ahead-kb: exit status $status, not 2"
expect_grep 'is for --read-ahead-kb' report.err "--read-requests without --read-ahead-kb"
exit 0
