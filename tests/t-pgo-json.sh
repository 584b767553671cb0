#!/bin/bash
# pgo-run status and show --format=json: valid JSON, format and version,
# the same facts as the text (profile in use, workloads, stale sources and
# the exit status that goes with them, the hottest functions).
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need python3

sample_project p
cd p
pgo_ok ../out ../err './prog 1'
"$PGO_RUN" status --format=json > ../status.json 2> ../err || fail "status --format=json: exit $? ($(cat ../err))"
python3 - ../status.json <<'EOF2' || fail "status JSON: $(cat ../status.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "linkopt-pgo-status" and d["format_version"] == 1, d
assert d["profile_state"] == "ok" and d["profile"], d
assert d["stale"] is False and d["changed_sources"] == [], d
assert [w["command"] for w in d["workloads"]] == ["./prog 1"], d["workloads"]
assert any(o["has_data"] for o in d["objects"]), d["objects"]
assert d["instrumented_in_tree"] == [], d
EOF2
"$PGO_RUN" show --format=json --top 3 > ../show.json 2> ../err || fail "show --format=json: $(cat ../err)"
python3 - ../show.json <<'EOF2' || fail "show JSON: $(cat ../show.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "linkopt-pgo-show" and d["format_version"] == 1, d
assert 1 <= len(d["functions"]) <= 3, d
assert all(f["calls"] > 0 and f["function"] and f["line"] > 0 for f in d["functions"]), d
assert d["functions"] == sorted(d["functions"], key=lambda f: -f["calls"]), d
EOF2
# a source changed since training: stale, named, exit status 1
echo '/* changed */' >> work.c
status=0
"$PGO_RUN" status --format=json > ../stale.json 2> /dev/null || status=$?
((status == 1)) || fail "status --format=json with a stale source: exit status $status, not 1"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["stale"] is True and any(s.endswith("work.c") for s in d["changed_sources"]), d' ../stale.json ||
	fail "the stale source is not in the JSON: $(cat ../stale.json)"
exit 0
