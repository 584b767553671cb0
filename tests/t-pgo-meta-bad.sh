#!/bin/bash
# pgo-run reads every field of its store's meta file with a check: a
# 'trained' time gmtime cannot take (status crashed with SIGSEGV on it), a
# negative weight, a malformed object or source line, a foreign first line:
# each is an error naming the file and line, exit 1, and nothing crashes.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
pgo_ok ../out ../err './prog 1'
meta=$(find .pgo -path '*/profile/meta' -o -path '*/p.*/meta' | head -n 1)
[[ -n $meta ]] || meta=$(find -L .pgo -name meta | head -n 1)
[[ -f $meta ]] || fail "no meta file in the store"
cp "$meta" ../meta.good

# sed expression|what the message says
while IFS='|' read -r edit says; do
	sed "$edit" ../meta.good > "$meta.new" && cat "$meta.new" > "$meta" && rm -f "$meta.new"
	pgo ../status ../err status
	pgo_status 1 "status with a meta file edited by '$edit'"
	expect_grep "meta: line [0-9]+: $says" ../err "status's message for '$edit'"
done <<'EOF2'
s/^trained .*/trained 99999999999999999/|'trained' is not a time
s/^trained .*/trained -5/|'trained' is not a time
s/^workload [0-9.]* /workload -2 /|a workload's weight is not a positive number
s/^object [01] /object x /|an object line is not
s/^source [0-9a-f]* /source zz /|a source line is not
1s/.*/something else/|not a pgo-run profile's meta file
EOF2
exit 0
