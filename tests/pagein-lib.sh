# Helpers for the pagein tests (sourced after lib.sh).
PAGEIN=$TOP/pagein/pagein

need_pagein() {
	need valgrind gcc nm
	[[ -x $TOP/pagein/pagein-amd64-linux && -x $TOP/pagein/pagein-report ]] ||
		fail "pagein is not built (run make)"
}

# base_of TRACE PATH: the load base the trace's object table gives PATH.
base_of() {
	awk -v p="$2" '$1 == "#" && $2 == "object" && $3 == p { print $7; exit }' "$1"
}

# records TRACE KIND: "ADDRESS SYMBOL" of every record of that kind, in order.
records() {
	awk -v k="$2" '$1 !~ /^#/ && $3 == k { sym = $6; print $2, sym }' "$1"
}

# page_of_symbol FILE SYMBOL: the page offset (hex) of SYMBOL in FILE, per nm.
page_of_symbol() {
	local v
	v=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[[ -n $v ]] || fail "nm finds no '$2' in $1"
	printf '0x%x\n' $(( 0x$v & ~0xfff ))
}

# relative TRACE PATH KIND: record addresses of KIND relative to PATH's base,
# with their symbols, for the records inside PATH's segments.
relative() {
	local base
	base=$(base_of "$1" "$2")
	[[ -n $base ]] || fail "$1 has no object line for $2"
	awk -v k="$3" -v base="$base" -v p="$2" '
	function hex(s,   i, c, v) { v = 0; s = tolower(substr(s, 3)); for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c } return v }
	$1 == "#" && $2 == "segment" && $3 == p { split($4, r, "-"); lo[n + 0] = hex(r[1]); hi[n + 0] = hex(r[2]); n++ }
	$1 !~ /^#/ && $3 == k {
		a = hex($2); inside = 0
		for (i = 0; i < n; i++) if (a < hi[i] && a + 4096 > lo[i]) inside = 1
		if (inside) printf "0x%x %s\n", a - hex(base), $6
	}' "$1"
}

# prefetch_apart PROG: fails unless PROG, linked with linkopt-prefetch.o
# after deporder's GNU ld script, has linkopt-prefetch.o's code on a page
# of its own before the traced range (__linkopt_hot_start ..
# __linkopt_hot_end): its call then faults a read-ahead window in over
# the traced code, not from the traced range's end into the code after it.
prefetch_apart() {
	local syms prefetch start end own
	syms=$(nm "$1") || fail "nm $1"
	read -r prefetch start end < <(awk '$3 == "linkopt_prefetch" { p = $1 } $3 == "__linkopt_hot_start" { s = $1 }
		$3 == "__linkopt_hot_end" { e = $1 } END { print "0x" p, "0x" s, "0x" e }' <<< "$syms")
	[[ $prefetch != 0x && $start != 0x && $end != 0x ]] ||
		fail "$1: linkopt_prefetch '$prefetch', hot range '$start'-'$end'"
	((prefetch < start && (prefetch >> 12) < (start >> 12))) ||
		fail "$1: linkopt_prefetch at $prefetch is not on a page before the traced range $start-$end"
	# its own functions, by the object's symbol table (those gcc did not inline)
	own=$(nm "$TOP/prefetch/linkopt-prefetch.o" | awk '$2 ~ /^[tT]$/ { printf "%s%s", n++ ? "|" : "", $3 }') ||
		fail "nm linkopt-prefetch.o"
	[[ -n $own ]] || fail "linkopt-prefetch.o defines no function"
	awk -v page=$((prefetch >> 12)) -v own="^($own)\$" '$2 ~ /^[tTwW]$/ {
		a = 0; s = tolower($1); for (i = 1; i <= length(s); i++) a = a * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		if (int(a / 4096) == page && $3 !~ own) { print $3; exit 1 }
	}' <<< "$syms" > other.txt || fail "$1: $(cat other.txt) shares the page of linkopt_prefetch"
}
