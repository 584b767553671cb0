#!/bin/bash
# A command given after an option (pgo-run --build make status) would run a
# whole cycle with the command's name as its workload: it is refused as
# wrong usage before anything runs.  Operands after -- are workloads
# whatever their names, and merge's operands are folders.
. "$TESTDIR/lib.sh"
. "$TOP/pgo-driver/test-fixtures.sh"

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
expect_grep "^pgo-run: 'show' is a command: put it first" ../err

pgo ../out ../err -- status
pgo_status 1 "pgo-run -- status"
expect_no_grep 'is a command' ../err
pgo ../out ../err merge show
pgo_status 1 "pgo-run merge show (no profile to merge into)"
expect_no_grep 'is a command' ../err
