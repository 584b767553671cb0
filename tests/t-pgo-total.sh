#!/bin/bash
# pgo-run's last line: the total is the sum of its two parts as printed,
# and the share of pgo-run itself is of that total; the commands' part is
# the sum of the times the steps printed.  Before, the figures were
# rounded apart ("0.7 s: builds, workloads and benchmark 0.6 s, pgo-run
# itself 0.03 s (5.5%)": 0.6 + 0.03 is no 0.7) and the share was of the
# commands' time, not of the total.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need python3

sample_project p
cd p
pgo_ok ../out ../err './prog 1 > /dev/null; sleep 0.5' './prog 0 > /dev/null'
python3 - ../out <<'PY' || fail "the total does not follow from its parts: $(grep '^\[total\]' ../out)"
import re, sys
out = open(sys.argv[1]).read()
m = re.search(r"^\[total\] ([0-9.]+) s: builds, workloads and benchmark ([0-9.]+) s, pgo-run itself ([0-9.]+) s "
              r"\(([0-9.]+)% of the total\)$", out, re.M)
assert m, "no total line"
total, commands, itself, share = (float(x) for x in m.groups())
assert abs(total - (commands + itself)) < 0.001, (total, commands, itself)
assert abs(share - 100 * itself / total) <= 0.05 + 1e-9, (share, itself, total)
# the commands' part: what the steps printed, each rounded (builds and
# their clean commands to 0.1 s, workloads to 0.01 s)
builds = [float(a) + float(b) for a, b in re.findall(r"^\[[a-z ]*build\] done in ([0-9.]+) s \(clean ([0-9.]+) s\)", out, re.M)]
workloads = [float(x) for x in re.findall(r"^\[train [0-9]+/[0-9]+\] [0-9]+ profile files? in ([0-9.]+) s$", out, re.M)]
assert len(builds) == 3 and len(workloads) == 2, (builds, workloads)
slack = 0.1 * len(builds) + 0.005 * len(workloads) + 0.005
assert abs(commands - sum(builds) - sum(workloads)) <= slack, (commands, builds, workloads)
assert workloads[0] >= 0.5, workloads
PY
exit 0
