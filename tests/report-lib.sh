# Helpers for the tests of linkopt report (sourced after lib.sh and
# pagein-lib.sh).
LINKOPT=$TOP/linkopt-report/linkopt

need_report() {
	need_pagein
	need readelf
	[[ -x $LINKOPT ]] || fail "linkopt is not built (run make)"
}

# segment_pages BINARY code|data: the pages of the binary's load segments
# of that kind, per readelf's program headers (code: the executable ones).
segment_pages() {
	readelf -lW "$1" | awk -v want="$2" '
	function hex(s,   i, c, v) { v = 0; s = tolower(substr(s, 3)); for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c } return v }
	$1 == "LOAD" {
		flags = ""; for (i = 7; i < NF; i++) flags = flags $i
		kind = flags ~ /E/ ? "code" : "data"
		if (kind != want) next
		start = int(hex($3) / 4096); end = int((hex($3) + hex($6) + 4095) / 4096)
		n += end - start
	}
	END { print n + 0 }'
}

# side_of HTML before|after: the lines of the report that belong to one side.
side_of() {
	awk -v want="$2" '
	/<div class="side" data-side="/ { on = index($0, "data-side=\"" want "\"") > 0 }
	/<\/section>/ { on = 0 }
	on' "$1"
}

# count PATTERN: the number of matches of the extended regular expression
# PATTERN on stdin.
count() {
	grep -oE -- "$1" | wc -l
}

# figure HTML SIDE NAME: the data-value of a figure row of a side.
figure() {
	side_of "$1" "$2" | sed -n "s/.*<tr data-figure=\"$3\" data-value=\"\([0-9]*\)\".*/\1/p" | head -1
}
