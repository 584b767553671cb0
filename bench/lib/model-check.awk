# model-check.awk: the model beside the measurement in linkopt-startup
# --placement=best's tables (bench/best/run): of each row's figures where
# both the model's and the measured cold pages are numbers (training and
# held out), how many are within 2% or 4 pages, and the largest
# difference.  Counts the rows after the last "== " line (one build's
# table); the header ("layout ...") and lines that are not rows of the
# table are not figures.
function number(s) { return s ~ /^[0-9]+(\.[0-9]+)?$/ }
/^== / { n = ok = worst = wp = 0; wrow = "" }
/^[ *] [a-z]/ {
	sub(/\(the default link\)/, "")
	if ($1 == "*") $1 = ""
	$0 = $0
	if ($1 == "layout" || !number($2))
		next
	for (c = 4; c <= 6; c += 2) if (number($c) && number($(c + 1))) {
		d = $c - $(c + 1); if (d < 0) d = -d
		p = $(c + 1) > 0 ? 100 * d / $(c + 1) : 0
		n++; if (d <= 4 || p <= 2) ok++
		if (d > worst) { worst = d; wp = p; wrow = $1 (c == 4 ? " (train)" : " (held out)") }
	}
}
END { printf "  model against measured: %d of %d figures within 2%% or 4 pages; largest difference %.1f pages (%.1f%%), %s\n", ok, n, worst, wp, wrow ? wrow : "-" }
