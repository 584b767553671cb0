#!/bin/bash
# A command given after an option (pgo-run --build make status) would run a
# whole cycle with the command's name as its workload: it is refused as
# wrong usage before anything runs.  merge's operands are folders, which
# may have any name.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
for command in status build merge clean show; do
	pgo ../out ../err --build make "$command"
	pgo_status 2 "pgo-run --build make $command"
	expect_grep "^pgo-run: '$command' is a command: put it first \(pgo-run $command \[options\]\)$" ../err
	expect_empty ../out
	[[ ! -e .pgo && ! -e prog ]] || fail "pgo-run --build make $command ran something"
done
pgo ../out ../err status --store s show
pgo_status 2 "pgo-run status --store s show"
expect_grep '^pgo-run: ' ../err

pgo ../out ../err merge show
pgo_status 1 "pgo-run merge show (no profile to merge into)"
expect_no_grep 'is a command' ../err

# After "--", a workload is what the user wrote, even one named like a
# command: it is checked as a workload (none is here), not refused as usage.
pgo ../out ../err --build make -- status
pgo_status 1 "pgo-run --build make -- status"
expect_grep "^pgo-run: workload 'status': cannot run 'status'" ../err
[[ ! -e prog ]] || fail "pgo-run --build make -- status built something"
