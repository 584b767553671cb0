# mk/startup.sh: the steps of mk/startup.mk that are more than one
# command; the fragment runs it with $(SHELL), never a user.
#
#   libdir FILE DIR                 DIR holds FILE (a hard link, else a
#                                   copy) under FILE's soname, for
#                                   LD_LIBRARY_PATH=DIR
#   trace PAGEIN TRACE BINARY LIBDIR -- CMD...
#                                   traces CMD (with LIBDIR first on
#                                   LD_LIBRARY_PATH unless empty) into
#                                   TRACE, which must hold BINARY
#   replace NEW OUT INPUT...        NEW becomes OUT, unless OUT is the same
#                                   link (same build-id); an OUT newer than
#                                   its inputs keeps its time
#   ordered RECORD OUT LINKER INPUTS REPORT DEFAULT TRACE AFTER PAGEIN LIBDIR -- CMD...
#                                   traces the ordered OUT into AFTER and
#                                   writes RECORD, unless RECORD is OUT's
#   pgo-built OUT INPUT...          every object among INPUT (archive
#                                   members too) that records its options
#                                   was compiled with -fprofile-use, and one
#                                   at least (pgo-run records them)
#   check-record RECORD OUT LINKER DEFAULT
#   check-order OUT NEW ORDER -- DEPORDER ARG...   (ARGs write NEW)
#   check-pages RECORD OUT REPORT TOLERANCE TRACE PAGEIN LIBDIR -- CMD...
#                                   make startup-check's three checks
#
# Functions keep their variables local (dash, bash and busybox sh have
# local).
#
# RECORD, written when OUT is ordered (temporary file and rename), holds
# "KEY VALUE" lines: output, linker, inputs (the link's files, as make
# found them), default-build-id and ordered-build-id
# (the default link the order was made from, and the ordered link),
# default-code-pages and ordered-code-pages (the start-up's code pages of
# each, as pagein counted them).
set -u

me=mk/startup.mk

die() {
	printf '%s: %s\n' "$me" "$*" >&2
	exit 1
}

# build_id FILE: FILE's GNU build-id in hex, or nothing
build_id() {
	LC_ALL=C readelf -n "$1" 2> /dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1
}

# need_build_id FILE: its build-id, or the reason it has none, and exit
need_build_id() {
	[ -f "$1" ] || die "$1: no such file"
	local id
	id=$(build_id "$1")
	[ -n "$id" ] || die "$1: has no build-id, so no trace can be proven to be of it: link with -Wl,--build-id"
	printf '%s\n' "$id"
}

# soname FILE: FILE's DT_SONAME, else its file name
soname() {
	local name
	name=$(LC_ALL=C readelf -d "$1" 2> /dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p' | head -n 1)
	[ -n "$name" ] || name=$(basename "$1")
	printf '%s\n' "$name"
}

absolute() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "$(pwd)" "$1" ;;
	esac
}

# record_get RECORD KEY: the value of KEY in RECORD
record_get() {
	sed -n "s/^$2 //p" "$1" | head -n 1
}

# code_pages REPORT TRACE ID: the code pages the object with build-id ID
# was touched at in TRACE
code_pages() {
	local json pages
	json=$("$1" --format=json "$2") || die "$2: $1 cannot read it"
	pages=$(printf '%s\n' "$json" | grep -o "\"build_id\": \"$3\", \"base\": [0-9]*, \"code_pages\": [0-9]*" |
		head -n 1 | sed 's/.*"code_pages": //')
	[ -n "$pages" ] || die "$2: holds no object with build-id $3"
	printf '%s\n' "$pages"
}

# loaded FILE TRACE BINARY WHY: FILE, the trace TRACE, must hold BINARY
# (by build-id); else says what was loaded under BINARY's name instead
loaded() {
	local id name found
	id=$(need_build_id "$3") || exit 1
	grep -q "^# object .* build-id $id base " "$1" && return 0
	name=$(soname "$3")
	found=$(sed -n "s|^# object \\(.*/$name\\) build-id \\([0-9a-f]*\\) base .*|\\1 (build-id \\2)|p" "$1" | head -n 3)
	if [ -n "$found" ]; then
		die "$2: the run did not load $3 (build-id $id) but $found: $4"
	fi
	die "$2: the run did not load $3 (build-id $id), nor anything named $name: $4"
}

cmd_libdir() {
	local name
	[ $# -eq 2 ] || die "startup.sh libdir: wrong arguments"
	name=$(soname "$1")
	rm -rf "$2" && mkdir -p "$2" || exit 1
	ln -f "$1" "$2/$name" 2> /dev/null || cp -f "$1" "$2/$name" || exit 1
}

cmd_trace() {
	[ $# -ge 6 ] && [ "$5" = -- ] || die "startup.sh trace: wrong arguments"
	local pagein=$1 trace=$2 binary=$3 libdir=$4 why
	shift 5
	why="STARTUP_RUN must run the program \$(STARTUP_PROGRAM) names"
	if [ -n "$libdir" ]; then
		LD_LIBRARY_PATH=$(absolute "$libdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
		why="the host finds $(soname "$binary") before LD_LIBRARY_PATH (a DT_RPATH, or a run that sets LD_LIBRARY_PATH itself), or does not load it"
	fi
	rm -f "$trace.tmp"
	"$pagein" --granularity=function --out-file="$(absolute "$trace.tmp")" -- "$@" > /dev/null ||
		{ rm -f "$trace.tmp"; die "$trace: the traced run failed: $*"; }
	(loaded "$trace.tmp" "$trace" "$binary" "$why") || { rm -f "$trace.tmp"; exit 1; }
	mv -f "$trace.tmp" "$trace"
}

cmd_replace() {
	[ $# -ge 2 ] || die "startup.sh replace: wrong arguments"
	local new=$1 out=$2 current input
	shift 2
	if [ -L "$out" ]; then
		rm -f "$new"
		die "$out: is a symbolic link (to $(readlink "$out")): name the file the link writes, which would replace the link"
	fi
	if [ -f "$out" ] && [ "$(build_id "$new")" = "$(build_id "$out")" ] && [ -n "$(build_id "$out")" ]; then
		rm -f "$new"
		return 0
	fi
	# The project's own rules take a relinked output for a rebuilt one
	# and relink what depends on it (the host that links a library)
	# without the order; the output keeps its time when it was up to date.
	if [ -f "$out" ]; then
		current=yes
		for input; do
			[ "$out" -nt "$input" ] || current=no
		done
		[ $current = no ] || touch -r "$out" "$new" || exit 1
	fi
	mv -f "$new" "$out"
}

cmd_ordered() {
	[ $# -ge 12 ] && [ "${11}" = -- ] || die "startup.sh ordered: wrong arguments"
	local record=$1 out=$2 linker=$3 inputs=$4 report=$5 default=$6 trace=$7 after=$8 pagein=$9 libdir=${10}
	local ordered_id default_id before now
	shift 11
	ordered_id=$(need_build_id "$out") || exit 1
	default_id=$(need_build_id "$default") || exit 1
	if [ -f "$record" ] && [ -f "$after" ] && [ "$(record_get "$record" ordered-build-id)" = "$ordered_id" ] &&
		[ "$(record_get "$record" default-build-id)" = "$default_id" ] &&
		[ "$(record_get "$record" linker)" = "$linker" ] && [ "$(record_get "$record" inputs)" = "$inputs" ] &&
		grep -q "^# object .* build-id $ordered_id base " "$after"; then
		before=$(record_get "$record" default-code-pages) now=$(record_get "$record" ordered-code-pages)
		echo "$out: ordered for $linker, start-up code pages $before -> $now (unchanged)"
		return 0
	fi
	if [ -n "$libdir" ]; then
		cmd_libdir "$out" "$libdir" || exit 1
	fi
	cmd_trace "$pagein" "$after" "$out" "$libdir" -- "$@" || exit 1
	before=$(code_pages "$report" "$trace" "$default_id") || exit 1
	now=$(code_pages "$report" "$after" "$ordered_id") || exit 1
	{
		echo "# $me: the ordered link of $out (read by make startup-check)"
		echo "output $out"
		echo "linker $linker"
		echo "inputs $inputs"
		echo "default-build-id $default_id"
		echo "ordered-build-id $ordered_id"
		echo "default-code-pages $before"
		echo "ordered-code-pages $now"
	} > "$record.tmp" && mv -f "$record.tmp" "$record" || die "$record: cannot write it"
	echo "$out: ordered for $linker, start-up code pages $before -> $now"
	[ "$now" -le "$before" ] ||
		echo "$me: warning: $out: the ordered link touches more code pages ($now) than the default one ($before)" >&2
}

cmd_pgo_built() {
	[ $# -ge 1 ] || die "startup.sh pgo-built: wrong arguments"
	local out=$1 input verdicts bad
	shift
	verdicts=
	for input; do
		case $input in
		*.o | *.a) ;;
		*) continue ;;
		esac
		# readelf names each archive member ("File: lib.a(x.o)"), and a
		# lone object not at all; an object compiled without
		# -frecord-gcc-switches (one of another build) records nothing.
		verdicts="$verdicts$(LC_ALL=C readelf -p .GCC.command.line "$input" 2> /dev/null | awk -v file="$input" '
			function close_member() { if (seen) print (pgo ? "pgo" : "other"), member }
			/^File: / { close_member(); member = substr($0, 7); seen = pgo = 0; next }
			/^  \[/ { seen = 1; if (member == "") member = file }
			/-fprofile-use/ { pgo = 1 }
			END { close_member() }')
"
	done
	bad=$(printf '%s' "$verdicts" | sed -n 's/^other //p' | tr '\n' ' ')
	[ -z "$bad" ] ||
		die "$out: inputs not built by pgo-run's optimized build (no -fprofile-use among the options they record): $bad"
	printf '%s' "$verdicts" | grep -q '^pgo ' ||
		die "$out: none of its inputs was built by pgo-run's optimized build (none records -fprofile-use): PGO_TARGET must build them"
}

cmd_check_record() {
	[ $# -eq 4 ] || die "startup.sh check-record: wrong arguments"
	local record=$1 out=$2 linker=$3 default=$4 was id want advice
	[ -f "$record" ] || die "$out: not ordered (no $record): run make startup"
	was=$(record_get "$record" linker)
	if [ "$was" != "$linker" ]; then
		# LINKER or LINKER/PLACEMENT (mk/startup.mk's startup_layout)
		case $was in
		*/*) advice="STARTUP_LINKER=${was%/*} STARTUP_PLACEMENT=${was#*/}" ;;
		*) case $linker in */*) advice="STARTUP_LINKER=$was STARTUP_PLACEMENT=head" ;; *) advice="STARTUP_LINKER=$was" ;; esac ;;
		esac
		die "$out: ordered for $was, not $linker: make startup-check $advice, or make startup"
	fi
	[ -f "$out" ] || die "$out: no such file: it was removed since make startup ordered it"
	id=$(build_id "$out") want=$(record_get "$record" ordered-build-id)
	[ "$id" = "$want" ] ||
		die "$out: stale: relinked since make startup ordered it (build-id ${id:-none}, ordered $want): run make startup"
	id=$(build_id "$default") want=$(record_get "$record" default-build-id)
	[ "$id" = "$want" ] ||
		die "$default: stale: relinked since the order was made from it (build-id ${id:-none}, then $want): run make startup"
}

cmd_check_order() {
	[ $# -ge 5 ] && [ "$4" = -- ] || die "startup.sh check-order: wrong arguments"
	local out=$1 new=$2 order=$3 err
	shift 4
	# deporder's own checks: the map describes the default link, the
	# trace holds it, and enough of the trace still matches the inputs
	rm -f "$new"
	if ! err=$("$@" 2>&1); then
		printf '%s\n' "$err" >&2
		die "$out: stale: deporder refuses the trace and the map the order was made from (above): run make startup"
	fi
	cmp -s "$new" "$order" ||
		die "$out: stale: the order made now from its trace, map and the inputs differs from $order (an input changed since it was made): run make startup"
	rm -f "$new"
}

cmd_check_pages() {
	[ $# -ge 9 ] && [ "$8" = -- ] || die "startup.sh check-pages: wrong arguments"
	local record=$1 out=$2 report=$3 tolerance=$4 trace=$5 pagein=$6 libdir=$7 id now ordered slack
	shift 8
	case $tolerance in
	'' | *[!0-9]*) die "STARTUP_CHECK_TOLERANCE = $tolerance: not a whole number of percent" ;;
	esac
	id=$(need_build_id "$out") || exit 1
	if [ -n "$libdir" ]; then
		cmd_libdir "$out" "$libdir" || exit 1
	fi
	cmd_trace "$pagein" "$trace" "$out" "$libdir" -- "$@" || exit 1
	now=$(code_pages "$report" "$trace" "$id") || exit 1
	ordered=$(record_get "$record" ordered-code-pages)
	slack=$(((ordered * tolerance + 99) / 100))
	[ "$slack" -ge 1 ] || slack=1
	if [ "$now" -gt $((ordered + slack)) ]; then
		die "$out: start-up code pages grew back: $now now, $ordered when ordered (at most $((ordered + slack)) pass, STARTUP_CHECK_TOLERANCE=$tolerance%): the run touches other code now; run make startup"
	fi
	echo "$out: start-up code pages $now, $ordered when ordered, $(record_get "$record" default-code-pages) before: ok"
}

[ $# -ge 1 ] || die "startup.sh: no command"
command=$1
shift
case $command in
libdir) cmd_libdir "$@" ;;
trace) cmd_trace "$@" ;;
replace) cmd_replace "$@" ;;
ordered) cmd_ordered "$@" ;;
check-record) cmd_check_record "$@" ;;
check-order) cmd_check_order "$@" ;;
check-pages) cmd_check_pages "$@" ;;
pgo-built) cmd_pgo_built "$@" ;;
*) die "startup.sh: unknown command '$command'" ;;
esac
