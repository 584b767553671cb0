#!/bin/bash
# pfstat prints every run's figures, in the order run, so that a median can
# be checked: a table after the medians (one row per run, each command's
# rows numbered as they alternate with --compare), and in JSON each
# figure's values.  The median, minimum and maximum printed are those of
# the values printed, and a row's pages read are the run's own.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need python3

head -c $((20 * 4096)) /dev/urandom > data
run_ok text.out "$PF" -n 4 --cold data --compare './probe read data' -- ./probe touch 50
expect_grep '^every run, in the order run \(command 2: the --compare one\):$' text.out "the table's title"
# rounds alternate which command runs first: 1 2, 2 1, 1 2, 2 1
awk 'f && NF { print $1, $2 } /^every run/ { f = 1; getline }' text.out > order
printf '%s\n' '1 1' '2 2' '3 2' '4 1' '5 1' '6 2' '7 2' '8 1' > want-order
expect_same want-order order "the runs' order"
# each run's minor faults: the table's against the medians printed
python3 - text.out <<'EOF2' || fail "the table against the medians: $(cat text.out)"
import statistics, sys
lines = open(sys.argv[1]).read().splitlines()
rows = lines[lines.index(next(l for l in lines if l.startswith("every run"))) + 2:]
by = {"1": [], "2": []}
for r in rows:
    f = r.split()
    by[f[1]].append((float(f[2]), float(f[8])))     # minor faults, pages read
minor = next(l for l in lines if l.startswith("minor faults")).split()
assert float(minor[2]) == statistics.median(m for m, _ in by["1"]), minor
assert float(minor[3]) == min(m for m, _ in by["1"]) and float(minor[4]) == max(m for m, _ in by["1"]), minor
assert float(minor[5]) == statistics.median(m for m, _ in by["2"]), minor
assert [p for _, p in by["1"]] == [0] * 4 and [p for _, p in by["2"]] == [20] * 4, by
EOF2
# the times: each median printed (to 0.1 ms) is that of the table's values
# (to the microsecond); with an even number of runs it is the mean of two
# values the table once showed rounded to 0.1 ms, which could not give it
python3 - text.out <<'EOF2' || fail "the times of the table against the medians: $(cat text.out)"
import statistics, sys
lines = open(sys.argv[1]).read().splitlines()
start = lines.index(next(l for l in lines if l.startswith("every run"))) + 2
rows = [r.split() for r in lines[start:]]
for name, col in (("user (ms)", 5), ("system (ms)", 6), ("wall (ms)", 7)):
    for side, at in (("1", 2), ("2", 5)):
        vals = [float(r[col]) for r in rows if r[1] == side]
        assert all(len(r[col].split(".")[1]) == 3 for r in rows), rows
        want = statistics.median(vals)
        printed = float(next(l for l in lines if l.startswith(name)).split()[at])
        assert abs(printed - want) <= 0.05 + 1e-9, (name, side, printed, want, vals)
EOF2

run_ok json.out "$PF" -n 5 --format=json -- ./probe touch 50
python3 - json.out <<'EOF2' || fail "JSON: $(head -c 600 json.out)"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "linkopt-pfstat" and d["format_version"] == 2
s = d["series"][0]
assert s["runs"] == 5 and s["order"] == [1, 2, 3, 4, 5], s["order"]
for key in ("minor_faults", "major_faults", "max_rss_kib", "user_ms", "system_ms", "wall_ms"):
    v = s[key]["values"]
    assert len(v) == 5, (key, v)
    if None in v:     # a maximum resident set at pfstat's floor: no figure, no median
        assert key == "max_rss_kib" and s[key]["median"] is None, (key, s[key])
        continue
    assert abs(s[key]["median"] - statistics.median(v)) < 1e-6, (key, s[key])
    assert s[key]["min"] == min(v) and s[key]["max"] == max(v), (key, s[key])
assert min(s["minor_faults"]["values"]) >= 50, s["minor_faults"]
EOF2
exit 0
