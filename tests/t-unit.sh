#!/bin/bash
# The C unit tests of lib/ (tests/unit/test-MODULE.c, built by make
# unit-build, which make check builds first): every program must exit 0,
# or 77 when it cannot run here (it says why).  A failure names the
# program, its exit status and its output.  Their temporary folders go
# into this test's folder.
. "$(dirname "$0")/lib.sh"

RUN_TIMEOUT=120
unit=$TOP/tests/unit
programs=()
for src in "$unit"/test-*.c; do
	[[ -e $src ]] && programs+=("${src%.c}")
done
(( ${#programs[@]} > 0 )) || fail "no unit test under $unit"

failed=0 skipped=0
for program in "${programs[@]}"; do
	name=$(basename "$program")
	[[ -x $program ]] || fail "$name is not built (make unit-build builds it)"
	TMPDIR=$PWD run_status "$name.out" "$program"
	case $RUN_STATUS in
	0) printf 'PASS %s\n' "$(tail -n 1 "$name.out")" ;;
	77)
		printf 'SKIP %s: %s\n' "$name" "$(cat "$name.out" "$name.out.err")"
		skipped=$((skipped + 1))
		;;
	*)
		printf 'FAIL %s: %s; its output:\n' "$name" "$(status_name "$RUN_STATUS")" >&2
		cat "$name.out" "$name.out.err" >&2
		failed=$((failed + 1))
		;;
	esac
done
(( failed == 0 )) || fail "$failed of ${#programs[@]} unit test programs failed"
(( skipped < ${#programs[@]} )) || skip "every unit test program skipped"
exit 0
