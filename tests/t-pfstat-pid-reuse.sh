#!/bin/bash
# pfstat --pid stops when the process ends, even when another process takes
# its pid before the next sample (the start time in /proc/PID/stat tells
# them apart).  In a pid namespace of its own (ns_last_pid) the test gives
# the pid of a process that lived 0.6 s to one that lives 3 s.  Before,
# pfstat sampled the second as the first: 10 samples, 3.6 s.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need unshare python3
[[ $(id -u) == 0 ]] || skip "needs root, for a pid namespace whose next pid it sets"
unshare --pid --fork --mount-proc true 2> /dev/null || skip "cannot make a pid namespace here"

cat > reuse.sh <<'EOF2'
sleep 0.6 & p=$!
"$PF" --pid $p --interval 400 --format=json > pid.json 2> pid.err &
pf=$!
wait $p
echo $((p - 1)) > /proc/sys/kernel/ns_last_pid
sleep 3 & q=$!
echo "$p $q" > pids
wait $pf
EOF2
PF=$PF RUN_TIMEOUT=60 run_ok ns.out unshare --pid --fork --mount-proc bash reuse.sh
read -r p q < pids
[[ $p == "$q" ]] || skip "the pid was not given again ($p, then $q)"
python3 - pid.json <<'EOF2' || fail "pfstat sampled past the end of the process: $(cat pid.json)"
import json, sys
samples = json.load(open(sys.argv[1]))["samples"]
assert 1 <= len(samples) <= 3 and samples[-1]["seconds"] < 1.5, [s["seconds"] for s in samples]
EOF2
exit 0
