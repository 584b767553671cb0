#!/bin/bash
# pgo-run --bench: every figure follows from the ones printed with it.
# Each run's time is printed and kept (bench/times.json); the medians are
# those of the runs; the speedup is the plain median over the PGO median.
# Before, it was the median of the per-run ratios, which the medians
# printed beside it do not give (3.833 s and 3.443 s, "speedup 1.036x"),
# and no run's time was kept.  Here the runs take set times: plain 0.4,
# 1.2 and 2.0 s, PGO 1.0, 0.2 and 0.8 s (medians 1.2 and 0.8 s: 1.5x;
# the median of the per-run ratios is 2.5).
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need python3

sample_project p
cd p
echo '0.4 1.2 2.0' > ../times-plain
echo '1.0 0.2 0.8' > ../times-pgo
cat > bench.sh <<'SH'
#!/bin/sh
# sleeps the next time of the build PGO_BIN is (none in the warm-up run)
case $(readlink -f "$PGO_BIN") in */bench/plain/*) b=plain ;; *) b=pgo ;; esac
n=$(cat ../count-$b 2> /dev/null || echo 0)
echo $((n + 1)) > ../count-$b
set -- 0 $(cat ../times-$b)
shift "$n"
sleep "$1"
"$PGO_BIN" 1 > /dev/null
SH
chmod +x bench.sh
pgo_ok ../out ../err --bench ./bench.sh --bench-program prog --runs 3 './prog 1'

# the runs, as printed
sed -n 's/^\[bench\] run \([0-9]*\): plain \([0-9.]*\) s, PGO \([0-9.]*\) s (plain\/PGO \([0-9.]*\))$/\1 \2 \3 \4/p' ../out > ../runs
expect_lines ../runs 3 "the runs printed"
line=$(grep '^\[bench\] plain median' ../out) || fail "no medians printed"
[[ $line =~ ^\[bench\]\ plain\ median\ ([0-9.]+)\ s,\ PGO\ median\ ([0-9.]+)\ s\;\ speedup\ \(plain\ median\ /\ PGO\ median,\ 3\ runs\ each\)\ ([0-9.]+)x$ ]] ||
	fail "the medians' line: $line"
plain_median=${BASH_REMATCH[1]} pgo_median=${BASH_REMATCH[2]} speedup=${BASH_REMATCH[3]}
json=$(sed -n "s/^\[bench\] every run's time: //p" ../out)
[[ -f $json ]] || fail "no file of the times: '$json'"

python3 - ../runs "$plain_median" "$pgo_median" "$speedup" "$json" <<'PY' || fail "the figures do not follow from each other: $(cat ../out)"
import json, statistics, sys
runs = [line.split() for line in open(sys.argv[1])]
plain = [float(r[1]) for r in runs]
pgo = [float(r[2]) for r in runs]
pm, gm, speedup = (float(x) for x in sys.argv[2:5])
# each run's ratio, and the medians, from the times printed
for r in runs:
    assert abs(float(r[1]) / float(r[2]) - float(r[3])) <= 0.0005 + 1e-9, ("run ratio", r)
assert abs(statistics.median(plain) - pm) <= 1e-6, ("plain median", plain, pm)
assert abs(statistics.median(pgo) - gm) <= 1e-6, ("PGO median", pgo, gm)
# the speedup follows from the medians printed
assert abs(pm / gm - speedup) <= 0.0005 + 1e-6, ("speedup", pm, gm, speedup)
# the set times show (a busy machine adds to each): plain median 1.2 s,
# PGO 0.8 s
assert 1.2 <= pm < 1.8 and 0.8 <= gm < 1.4 and 1.1 < speedup < 1.6, (pm, gm, speedup)
# the file holds the same runs and figures
d = json.load(open(sys.argv[5]))
assert d["format"] == "linkopt-pgo-bench" and d["format_version"] == 1, d
assert d["command"] == "./bench.sh" and d["runs"] == 3, d
assert d["plain"]["seconds"] == plain and d["pgo"]["seconds"] == pgo, d
assert d["plain"]["program"].endswith("/bench/plain/prog") and d["pgo"]["program"].endswith("/bench/pgo/prog"), d
for b, m in (("plain", pm), ("pgo", gm)):
    assert d[b]["median"] == statistics.median(d[b]["seconds"]), (b, d[b])
    assert abs(d[b]["median"] - m) <= 1e-6, (b, d[b], m)
assert abs(d["speedup"] - d["plain"]["median"] / d["pgo"]["median"]) <= 1e-6, d
ratios = [a / b for a, b in zip(plain, pgo)]
assert all(abs(a - b) <= 1e-6 for a, b in zip(d["ratios"], ratios)), d
assert abs(d["ratio_median"] - statistics.median(ratios)) <= 1e-6, d
PY
exit 0
