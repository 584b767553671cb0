# tests/lib.sh: sourced by every tests/t-*.sh.  The runner (tests/run)
# starts each test in a fresh empty directory with TOP, DEPORDER and
# TESTDIR exported.  A test exits 0 to pass, 77 to skip, anything else
# to fail.

set -u

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${TESTDIR:=$TOP/tests}"
: "${DEPORDER:=$TOP/deporder/deporder}"
export TOP TESTDIR DEPORDER
export LC_ALL=C

# at_exit COMMAND: run COMMAND (a shell line) when the test ends, however
# it ends, with TEST_EXIT_STATUS the test's exit status; the last one
# given runs first.  Tests use this, never their own trap on EXIT, which
# would replace the others.
test_at_exit=()
at_exit() {
	test_at_exit+=("$1")
}

test_run_at_exit() {
	TEST_EXIT_STATUS=$?
	local i
	trap - EXIT
	for ((i = ${#test_at_exit[@]} - 1; i >= 0; i--)); do
		eval "${test_at_exit[i]}" || true
	done
	exit "$TEST_EXIT_STATUS"
}
trap test_run_at_exit EXIT

# A test run alone (bash tests/t-foo.sh, or tests/t-foo.sh) makes its own
# private folder as the runner would, works in it, removes it when the
# test passes and keeps it (and says where) when it fails or is skipped.
if [[ -z ${TEST_WORKDIR:-} ]]; then
	TEST_WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/linkopt-$(basename "$0" .sh).XXXXXX") ||
		{ echo "cannot create a temporary folder" >&2; exit 1; }
	export TEST_WORKDIR
	cd "$TEST_WORKDIR" || exit 1
	test_alone_end() {
		cd / || return
		case $TEST_EXIT_STATUS in
		0) rm -rf -- "$TEST_WORKDIR"; echo "PASS $(basename "$0" .sh)" ;;
		77) echo "SKIP $(basename "$0" .sh) (kept $TEST_WORKDIR)" ;;
		*) echo "FAIL $(basename "$0" .sh) (exit status $TEST_EXIT_STATUS; kept $TEST_WORKDIR)" ;;
		esac
	}
	at_exit test_alone_end
fi

# Seconds one deporder run may take before it counts as hung.
: "${DEPORDER_TIMEOUT:=120}"

# fail MSG: report MSG and fail the test.
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}

# note MSG: a finding that does not fail the test, but that a reader of
# the whole run must see: tests/run repeats it, in one line, at the end.
note() {
	printf 'NOTE: %s\n' "$*" >&2
}

# skip MSG: skip the test, MSG says why.
skip() {
	printf '%s\n' "$*" >&2
	if [[ -n ${TEST_SKIP_FILE:-} ]]; then
		printf '%s\n' "$*" > "$TEST_SKIP_FILE"
	fi
	exit 77
}

# need CMD…: skip unless every CMD is on PATH (or is an executable path).
need() {
	local cmd
	for cmd; do
		command -v "$cmd" > /dev/null 2>&1 || skip "needs $cmd"
	done
}

# need_deporder: fail (not skip: it is the program under test) when the
# deporder binary is missing.
need_deporder() {
	[[ -x $DEPORDER ]] || fail "no deporder binary at $DEPORDER (run make)"
}

# expect_same EXPECTED ACTUAL [WHAT]: fail with a unified diff unless the
# two files are byte for byte equal.
expect_same() {
	if ! cmp -s -- "$1" "$2"; then
		printf 'FAIL: %s differs (--- expected, +++ actual):\n' "${3:-$2}" >&2
		diff -u -- "$1" "$2" | head -n "${DIFF_LINES:-60}" >&2
		exit 1
	fi
}

# expect_grep PATTERN FILE [WHAT]: fail unless FILE has a line matching
# the extended regular expression PATTERN.
expect_grep() {
	if ! grep -Eq -- "$1" "$2"; then
		printf 'FAIL: %s: no line matches /%s/; it holds:\n' "${3:-$2}" "$1" >&2
		head -n 20 -- "$2" >&2
		exit 1
	fi
}

# expect_no_grep PATTERN FILE [WHAT]: fail if FILE has a line matching
# PATTERN, or if there is no file FILE.
expect_no_grep() {
	[[ -f $2 ]] || fail "${3:-$2}: no such file (a check for what it must not hold needs it)"
	if grep -Eq -- "$1" "$2"; then
		printf 'FAIL: %s: unexpected line matching /%s/:\n' "${3:-$2}" "$1" >&2
		grep -E -- "$1" "$2" | head -n 10 >&2
		exit 1
	fi
}

# expect_empty FILE [WHAT]: fail unless FILE exists and is empty.
expect_empty() {
	[[ -f $1 ]] || fail "${2:-$1}: no such file (it should exist and be empty)"
	if [[ -s $1 ]]; then
		printf 'FAIL: %s should be empty; it holds:\n' "${2:-$1}" >&2
		head -n 20 -- "$1" >&2
		exit 1
	fi
}

# run_deporder OUT ERR ARGS…: run deporder with ARGS, stdout to OUT,
# stderr to ERR; the exit status is left in DEP_STATUS.  A crash (killed
# by a signal) or a hang fails the test whatever the caller expected.
run_deporder() {
	local out=$1 err=$2
	shift 2
	need_deporder
	DEP_STATUS=0
	timeout -k 5 "$DEPORDER_TIMEOUT" "$DEPORDER" "$@" > "$out" 2> "$err" < /dev/null ||
		DEP_STATUS=$?
	if (( DEP_STATUS == 124 )); then
		fail "deporder $* timed out after ${DEPORDER_TIMEOUT}s"
	fi
	if (( DEP_STATUS >= 128 )); then
		printf 'stderr of the crashed run:\n' >&2
		head -n 20 -- "$err" >&2
		fail "deporder $* crashed (exit status $DEP_STATUS)"
	fi
}

# expect_status N WHAT: fail unless the last run_deporder exited with N.
expect_status() {
	if (( DEP_STATUS != $1 )); then
		printf 'FAIL: %s: exit status %d, expected %d; stderr:\n' "$2" "$DEP_STATUS" "$1" >&2
		head -n 20 -- "${DEP_ERR:-/dev/null}" >&2
		exit 1
	fi
}

# deporder_ok OUT ERR ARGS…: run deporder and fail unless it exits 0.
deporder_ok() {
	DEP_ERR=$2
	run_deporder "$@"
	if (( DEP_STATUS != 0 )); then
		printf 'stderr:\n' >&2
		head -n 30 -- "$2" >&2
		shift 2
		fail "deporder $* exited $DEP_STATUS"
	fi
}

# ---- running programs -----------------------------------------------------

# Seconds one program run through run_status may take before it counts as
# hung.
: "${RUN_TIMEOUT:=300}"

# status_name N: "exit status N", or the signal that killed a program.
status_name() {
	if (( $1 > 128 && $1 < 128 + 65 )); then
		printf 'killed by SIG%s' "$(kill -l "$(($1 - 128))" 2> /dev/null || echo "$(($1 - 128))")"
	else
		printf 'exit status %d' "$1"
	fi
}

# run_status OUT CMD [ARG…]: run CMD with standard output to OUT and
# standard error to OUT.err (standard input stays the test's); its exit
# status is left in RUN_STATUS.  A run that hangs past RUN_TIMEOUT fails
# the test.
run_status() {
	local out=$1
	shift
	RUN_STATUS=0
	timeout -k 5 "$RUN_TIMEOUT" "$@" > "$out" 2> "$out.err" || RUN_STATUS=$?
	if (( RUN_STATUS == 124 )); then
		fail "$* hung (no exit after ${RUN_TIMEOUT}s)"
	fi
}

# run_ok OUT CMD [ARG…]: run_status, and fail unless CMD exited 0; the
# message names the status or the signal and shows its standard error.
run_ok() {
	local out=$1
	run_status "$@"
	shift
	if (( RUN_STATUS != 0 )); then
		printf 'stderr of %s:\n' "$1" >&2
		head -n 20 -- "$out.err" >&2
		fail "$*: $(status_name "$RUN_STATUS"), expected exit status 0"
	fi
}

# expect_exit N OUT CMD [ARG…]: run_status, and fail unless CMD exited N
# (a program expected to fail must fail the way it should, not crash).
expect_exit() {
	local want=$1 out=$2
	shift
	run_status "$@"
	shift
	if (( RUN_STATUS != want )); then
		printf 'stderr of %s:\n' "$1" >&2
		head -n 20 -- "$out.err" >&2
		fail "$*: $(status_name "$RUN_STATUS"), expected exit status $want"
	fi
}

# expect_output WANT OUT WHAT CMD [ARG…]: the check that a program still
# works: CMD must exit 0 and print exactly the file WANT (its output is
# left in OUT).
expect_output() {
	local want=$1 out=$2 what=$3
	shift 3
	[[ -f $want ]] || fail "$what: no expected output $want (the fixture is wrong)"
	run_ok "$out" "$@"
	expect_same "$want" "$out" "$what"
}

# ---- fixtures -------------------------------------------------------------

# Flags every fixture is compiled with: no unwind tables and no CET notes,
# so that the only sections are the ones the test writes.
FIXTURE_CFLAGS=(-O1 -fno-asynchronous-unwind-tables -fno-unwind-tables
	-fcf-protection=none -fno-stack-protector)

# cc_obj OUT.o SRC [FLAGS…]: compile one C file (C++ for .cc/.cpp).
cc_obj() {
	local out=$1 src=$2 compiler=gcc
	shift 2
	case $src in *.cc|*.cpp) compiler=g++ ;; esac
	"$compiler" "${FIXTURE_CFLAGS[@]}" "$@" -c -o "$out" "$src" ||
		fail "cannot compile $src"
}

# cc_objs FLAGS… -- SRC…: compile each SRC to SRC-without-suffix.o.
cc_objs() {
	local flags=() src
	while (( $# )) && [[ $1 != -- ]]; do
		flags+=("$1")
		shift
	done
	shift
	for src; do
		cc_obj "${src%.*}.o" "$src" "${flags[@]}"
	done
}

# make_archive LIB.a MEMBER.o…: a fresh regular archive with a symbol index,
# members in the order given.
make_archive() {
	local lib=$1
	shift
	rm -f -- "$lib"
	ar rcs "$lib" "$@" || fail "ar rcs $lib failed"
}

# make_thin_archive LIB.a MEMBER.o…: a fresh thin archive with an index.
make_thin_archive() {
	local lib=$1
	shift
	rm -f -- "$lib"
	ar rcsT "$lib" "$@" || fail "ar rcsT $lib failed"
}

# ldmap_members MAP: ld's extracted members, normalized, one per line.
ldmap_members() {
	"$TESTDIR/ldmap-members" "$1" | "$TESTDIR/normalize-members"
}

# normalize FILE: deporder's --format=members output, normalized.
normalize() {
	"$TESTDIR/normalize-members" "$1"
}

# ---- oracles --------------------------------------------------------------

# The oracle helpers take a NAME (prefix of the files they write) and the
# link arguments.  Set ORACLE_LINK_MAY_FAIL=1 when ld is expected to report
# errors (the map is still compared; link it with --noinhibit-exec or
# --unresolved-symbols=ignore-all so ld goes on).

# oracle_ld NAME [--ld-only ARG… --] INPUT…: link INPUT… with ld itself
# (the ARGs after --ld-only go only to ld) and compare the members ld
# extracted with `deporder --format=members INPUT…`, set and order.
oracle_ld() {
	local name=$1 ldonly=()
	shift
	if [[ ${1:-} == --ld-only ]]; then
		shift
		while [[ $1 != -- ]]; do
			ldonly+=("$1")
			shift
		done
		shift
	fi
	local status=0
	ld -o "$name.out" -Map="$name.map" "${ldonly[@]}" "$@" > "$name.ld.err" 2>&1 || status=$?
	if (( status != 0 )) && [[ ${ORACLE_LINK_MAY_FAIL:-0} != 1 ]]; then
		cat "$name.ld.err" >&2
		fail "$name: the reference link with ld failed"
	fi
	[[ -f $name.map ]] || fail "$name: ld wrote no map"
	ldmap_members "$name.map" > "$name.expected"
	deporder_ok "$name.dep" "$name.dep.err" --format=members "$@"
	normalize "$name.dep" > "$name.actual"
	expect_same "$name.expected" "$name.actual" "$name: deporder --format=members ${*}"
}

# oracle_cc NAME COMPILER ARG…: link with `COMPILER ARG… -Wl,-Map=NAME.map`
# and compare ld's members with `deporder --format=members --cc -- COMPILER
# ARG…`.  ORACLE_CC_EXTRA (array) holds link args given only to the
# reference link.
oracle_cc() {
	local name=$1
	shift
	local status=0
	"$@" "${ORACLE_CC_EXTRA[@]}" -Wl,-Map="$name.map" > "$name.ld.err" 2>&1 || status=$?
	if (( status != 0 )) && [[ ${ORACLE_LINK_MAY_FAIL:-0} != 1 ]]; then
		cat "$name.ld.err" >&2
		fail "$name: the reference link failed: $*"
	fi
	[[ -f $name.map ]] || fail "$name: the linker wrote no map"
	ldmap_members "$name.map" > "$name.expected"
	deporder_ok "$name.dep" "$name.dep.err" --format=members --cc -- "$@"
	normalize "$name.dep" > "$name.actual"
	expect_same "$name.expected" "$name.actual" "$name: deporder --format=members --cc -- ${*}"
}
ORACLE_CC_EXTRA=()

# expect_nonempty FILE WHAT: guard against vacuous comparisons.
expect_nonempty() {
	[[ -s $1 ]] || fail "$2: expected a non-empty list (the fixture is wrong)"
}

# expect_lines FILE N WHAT: FILE has exactly N lines.
expect_lines() {
	local n
	n=$(wc -l < "$1")
	(( n == $2 )) || { cat "$1" >&2; fail "$3: expected $2 lines, got $n"; }
}

# install_copy: copies the built tree (not its caches, fuzz work or .git)
# to ./tree, runs make install into ./dest with PREFIX /opt/linkopt,
# removes the copy and sets P to the installed PREFIX.
install_copy() {
	local dest=$PWD/dest prefix=/opt/linkopt
	mkdir tree
	tar -C "$TOP" --exclude=./cache --exclude=./deb --exclude=./fuzz/work --exclude=./fuzz/work2 --exclude=./fuzz/build \
		--exclude=./.git -cf - . | tar -C tree -xf - || fail "cannot copy the tree"
	make -s -C tree install DESTDIR="$dest" PREFIX="$prefix" > install.log 2>&1 ||
		fail "make install: $(tail -5 install.log)"
	rm -rf tree
	P=$dest$prefix
}
