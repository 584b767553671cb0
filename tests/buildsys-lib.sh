# Helpers for the tests of linkopt-cc and linkopt-startup (sourced after
# lib.sh and pagein-lib.sh).
LINKOPT_CC=$TOP/linkopt-cc/linkopt-cc
LINKOPT_STARTUP=$TOP/linkopt-startup/linkopt-startup

need_buildsys() {
	need_pagein
	[[ -x $LINKOPT_CC && -x $LINKOPT_STARTUP ]] || fail "linkopt-cc or linkopt-startup is not built (run make)"
}

# faults_recordable: whether the kernel lets this user record the page
# faults of a command (perf_event_open; the native runs of
# linkopt-startup --placement=best need it): root, or
# kernel.perf_event_paranoid 2 or less
faults_recordable() {
	local level
	(( EUID == 0 )) && return 0
	level=$(cat /proc/sys/kernel/perf_event_paranoid 2> /dev/null) || return 1
	(( level <= 2 ))
}

# need_faults_recordable: skips unless faults_recordable.
need_faults_recordable() {
	faults_recordable || skip "this user may not record page faults (kernel.perf_event_paranoid)"
}

# real_project NAME: a copy of a real project's sources (scripts/fetch) in
# ./NAME, timestamps kept (a configure tree copied with newer files would
# regenerate itself); skips without them.
real_project() {
	local src
	src=$("$TOP/scripts/fetch" "$1" 2> fetch.err) || skip "needs $1's sources: $(tail -n 1 fetch.err)"
	cp -a "$src" "$1" || fail "cannot copy $src"
}

# xml_file FILE N: N records of XML (elements, attributes, entities,
# comments, CDATA), for xmlwf.
xml_file() {
	awk -v n="$2" 'BEGIN {
		print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
		print "<catalog>"
		for (i = 0; i < n; i++) {
			printf "  <book id=\"b%d\" lang=\"%s\">\n", i, i % 3 ? "en" : "fr"
			printf "    <title>Title &amp; subtitle %d</title>\n", i
			printf "    <!-- entry %d -->\n", i
			printf "    <price currency=\"EUR\">%d.%02d</price>\n", i % 97, i % 100
			printf "    <note><![CDATA[a <raw> note %d]]></note>\n", i
			print "  </book>"
		}
		print "</catalog>"
	}' > "$1"
}

# startup_ok LOG ARGS...: runs linkopt-startup ARGS..., stdout and stderr
# to LOG; fails the test unless it exits 0.
startup_ok() {
	local log=$1 status=0
	shift
	timeout -k 5 900 "$LINKOPT_STARTUP" "$@" > "$log" 2>&1 < /dev/null || status=$?
	if ((status != 0)); then
		tail -n 20 "$log" >&2
		fail "linkopt-startup $* exited $status"
	fi
}

# pages REPORT NAME: "code-plain code-ordered data-plain data-ordered" of
# NAME in the table linkopt-startup --report printed.
pages() {
	awk -v n="$2" '$1 == n && NF == 5 { print $2, $3, $4, $5 }' "$1"
}

# expect_fewer REPORT NAME [or-equal]: the ordered NAME touches fewer code
# pages than the plain one (or as many, for a program whose start-up runs
# little of its own code).
expect_fewer() {
	local before after rest
	read -r before after rest <<< "$(pages "$1" "$2")"
	[[ -n $before && -n $after ]] || fail "no line for $2 in the report: $(cat "$1")"
	if [[ ${3:-} == or-equal ]]; then
		((after <= before)) || fail "$2: code pages $before -> $after with the order"
	else
		((after < before)) || fail "$2: code pages $before -> $after with the order: not fewer"
	fi
	echo "row: $2 $before $after"
}

# The linker and the number of make or ninja jobs a test builds with:
# DEFAULT, the test's own choice, or tests/buildsys-matrix's cell
# (BUILDSYS_LINKER: gnu-ld, gold or lld; BUILDSYS_JOBS: 1 or 2).
matrix_linker() { echo "${BUILDSYS_LINKER:-$1}"; }
matrix_jobs() { echo "${BUILDSYS_JOBS:-$1}"; }

# linked_by FILE LINKER: fails unless LINKER linked FILE: gold leaves its
# note, lld its line in .comment, GNU ld neither, and its link with
# deporder's script defines __linkopt_hot_start.
linked_by() {
	local gold=no lld=no
	readelf -n "$1" 2> /dev/null | grep -q 'gold version' && gold=yes
	readelf -p .comment "$1" 2> /dev/null | grep -q LLD && lld=yes
	case $2 in
	gnu-ld) [[ $gold$lld == nono ]] && nm "$1" 2> /dev/null | grep -q __linkopt_hot_start ||
			fail "$1 is not linked by GNU ld with deporder's script (gold: $gold, lld: $lld)" ;;
	gold) [[ $gold == yes ]] || fail "$1 was not linked by gold" ;;
	lld) [[ $lld == yes ]] || fail "$1 was not linked by lld" ;;
	*) fail "linked_by: no linker $2" ;;
	esac
}
