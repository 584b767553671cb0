# requests-check.awk: the model's read requests beside the loop device's
# in bench/best/run's results: of the last build's table (the rows after
# its "== " line), each row's reqs columns (the model's count, train and
# held out: columns 9 and 10 once the "*" and "(the default link)" are
# out), against the same layout's row of the measured cold starts that
# cold-costs.awk printed after it (requests: its columns 3 and 7); how
# many figures agree within half a request, and the largest difference.
# A figure that is "-" or "?" on either side is not counted.
function number(s) { return s ~ /^[0-9]+(\.[0-9]+)?$/ }
/^== / { n = ok = worst = 0; wrow = ""; costs = 0; delete model_t; delete model_h }
/^  measured cold starts \(means of the medians\)/ { costs = 1; next }
/^  held-out workload / { costs = 0 }
costs && /^  [^ ]/ && $1 != "layout" {
	if (!($1 in model_t))
		next
	for (c = 0; c < 2; c++) {
		m = c ? model_h[$1] : model_t[$1]
		v = c ? $7 : $3
		if (!number(m) || !number(v))
			continue
		d = m - v; if (d < 0) d = -d
		n++; if (d <= 0.5) ok++
		if (d > worst) { worst = d; wrow = $1 (c ? " (held out)" : " (train)") }
	}
	next
}
!costs && /^[ *] [a-z]/ {
	sub(/ \(the default link\)/, "")
	if ($1 == "*") $1 = ""
	$0 = $0
	if ($1 == "layout" || !number($2))
		next
	model_t[$1] = $9
	model_h[$1] = $10
}
END { printf "  the model's read requests against measured: %d of %d figures within half a request; largest difference %.1f, %s\n", ok, n, worst, wrow ? wrow : "-" }
