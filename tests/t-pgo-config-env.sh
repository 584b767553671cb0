#!/bin/bash
# The configuration a profile belongs to includes CXX, CXXFLAGS and
# CPPFLAGS when they are set (make's rules and configure scripts pass
# them to the compiler): a build under other ones is another
# configuration.  They were left out: status called the profile trained
# without them this configuration's, and `CPPFLAGS=-DNDEBUG pgo-run build`
# built with it.  Unset, they change no configuration's key.  A status of
# a configuration without a profile names the store's configurations that
# have one (a status run without the cycle's --build or CFLAGS said
# "profile: none" and no more).
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need python3

sample_project p
cd p
pgo_ok ../out ../err './prog 1'
key=$(sed -n 's/^\[store\] .* (configuration \([0-9a-f]*\))$/\1/p' ../out)
# the key of the configuration with none of them set, as pgo-run named it
# before they counted: a hash of these four lines
expect_grep '^build: make$' .pgo/"$key"/config
[[ $(wc -l < .pgo/"$key"/config) == 4 ]] || fail "the configuration's description: $(cat .pgo/"$key"/config)"
pgo_ok ../status ../err status
expect_grep "^configuration: $key$" ../status

for setting in CPPFLAGS=-DNDEBUG CXXFLAGS=-O1 CXX=g++; do
	env "$setting" "$PGO_RUN" status > ../status-other 2> ../err-other < /dev/null && st=0 || st=$?
	((st == 1)) || fail "status with $setting: exit status $st"
	expect_no_grep "^configuration: $key$" ../status-other "status with $setting"
	expect_grep '^profile: none$' ../status-other "status with $setting"
	expect_grep "^  ${setting%%=*}: ${setting#*=}" ../status-other "status with $setting"
	# and says which configuration has one
	expect_grep '^other configurations of this store have a profile' ../status-other "status with $setting"
	expect_grep "^  $key \(trained [0-9]+ s ago\): compiler: .*; build: make$" ../status-other "status with $setting"
done
# the same in JSON
env CFLAGS=-O1 "$PGO_RUN" status --format=json > ../other.json 2> /dev/null < /dev/null
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["profile_state"] == "none" and [o["configuration"] for o in d["other_profiles"]] == [sys.argv[2]], d' \
	../other.json "$key" || fail "status --format=json of another configuration: $(cat ../other.json)"
status=0
CPPFLAGS=-DNDEBUG timeout 120 "$PGO_RUN" build > ../out-build 2> ../err-build < /dev/null || status=$?
((status == 1)) || fail "pgo-run build with other CPPFLAGS: exit status $status"
expect_grep "no profile to build with" ../err-build
exit 0
