#!/bin/bash
# pfstat --output --format=json: the command's output goes to standard
# error, and standard output holds the JSON alone, which parses.  Before,
# the command's "3 lines 6 bytes" came first on standard output, and no
# JSON reader could read the report.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need python3

printf 'a\nb\nc\n' > in.txt
run_ok out "$PF" -n 2 --output --format=json -- ./probe lines < in.txt
python3 - out <<'EOF2' || fail "the JSON on standard output: $(cat out)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "linkopt-pfstat" and len(d["series"][0]["minor_faults"]["values"]) == 2, d
EOF2
[[ $(grep -c '^3 lines 6 bytes$' out.err) == 2 ]] || fail "the command's output of 2 runs on stderr: $(cat out.err)"
# text: the command's output stays on standard output, before the report
run_ok text "$PF" -n 2 --output -- ./probe lines < in.txt
[[ $(head -n 2 text | grep -c '^3 lines 6 bytes$') == 2 ]] || fail "the text report's command output: $(cat text)"
exit 0
