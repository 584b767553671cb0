#!/bin/bash
# Wrong usage exits 2 with a message on stderr and nothing on stdout.
. "$(dirname "$0")/lib.sh"

cat > m.c <<'EOF'
int main(void) { return 0; }
EOF
cc_obj m.o m.c

failures=0 rows=0
row() { # PATTERN ARG…
	local pattern=$1 n=$((++rows))
	shift
	run_deporder out.$n err.$n "$@"
	if (( DEP_STATUS != 2 )); then
		printf 'row %d: deporder %s: exit status %d, expected 2; stderr:\n' "$n" "$*" "$DEP_STATUS" >&2
		sed 's/^/    /' err.$n | head -n 5 >&2
		failures=$((failures + 1))
	elif ! grep -Eq -- "$pattern" err.$n; then
		printf 'row %d: deporder %s: stderr does not match /%s/:\n' "$n" "$*" "$pattern" >&2
		sed 's/^/    /' err.$n | head -n 5 >&2
		failures=$((failures + 1))
	elif [[ -s out.$n ]]; then
		printf 'row %d: deporder %s: printed on stdout\n' "$n" "$*" >&2
		failures=$((failures + 1))
	fi
}
row 'frobnicate' --frobnicate m.o
row 'frobnicate' --format=members --frobnicate m.o
row 'bogus' --format=bogus m.o
row 'bogus' --granularity=bogus m.o
row 'seed' m.o --seed
row 'format|usage' --format
(( failures == 0 )) || fail "$failures of $rows rows failed"
