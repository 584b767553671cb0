# cold-costs.awk: what each candidate's measured cold starts cost, from
# linkopt-startup --placement=best's record of them (DIR/NAME.best.cold:
# a line per candidate and workload, the layout, the workload and pfstat's
# --format=json report): per candidate, in the order of the record, the
# means over the training and over the held-out workloads of the medians
# of its pages read (every file of the layout together), the loop
# device's read requests and the wall ms, and pages + k x requests (the
# search's ranking; -v k=N, default 0).  -v held=FILE: the held-out
# workloads, a line each; every other workload trained.  A request count
# pfstat wrote as null (it could not tell the device's reads for the
# layout from others) makes that mean, and the cost, "?".
BEGIN {
	FS = "\t"
	while (held != "" && (getline line < held) > 0)
		is_held[line] = 1
}
# the sum of every "KEY": {"median": N in s; -1 when one is null
function medians(s, key,    total, at, rest, v) {
	total = 0
	rest = s
	key = "\"" key "\": {\"median\": "
	while ((at = index(rest, key)) > 0) {
		rest = substr(rest, at + length(key))
		if (rest ~ /^null/)
			return -1
		v = rest + 0
		total += v
	}
	return total
}
NF >= 3 {
	name = $1
	sub(/ \(the default link\)$/, "", name)
	if (!(name in seen)) {
		seen[name] = 1
		order[++count] = name
	}
	ph = ($2 in is_held) ? "held" : "train"
	n[name, ph]++
	pages[name, ph] += medians($3, "pages_read")
	r = medians($3, "read_requests")
	if (r < 0)
		unknown[name, ph] = 1
	requests[name, ph] += r
	wall[name, ph] += medians($3, "wall_ms")
}
function figure(name, ph,    m, p, r) {
	m = n[name, ph]
	if (!m)
		return sprintf("%34s", "-")
	p = pages[name, ph] / m
	if (unknown[name, ph])
		return sprintf("%7.1f %8s %6.1f %10s", p, "?", wall[name, ph] / m, "?")
	r = requests[name, ph] / m
	return sprintf("%7.1f %8.1f %6.1f %10.1f", p, r, wall[name, ph] / m, p + k * r)
}
END {
	if (!count)
		exit
	printf "  measured cold starts (means of the medians), pages + %d x requests:\n", k
	printf "  %-36s %34s   %34s\n", "layout", "train: pages requests ms   cost", "held out: pages requests ms   cost"
	for (i = 1; i <= count; i++)
		printf "  %-36s %s   %s\n", order[i], figure(order[i], "train"), figure(order[i], "held")
}
