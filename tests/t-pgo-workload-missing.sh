#!/bin/bash
# A workload whose command sh cannot find stops pgo-run before the
# instrumented build, whichever workload it is; words sh would expand and
# paths (the build may make them) are left to the run.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
# refused WORKLOAD ARGS…: pgo-run ARGS stops on WORKLOAD before it builds.
refused() {
	local bad=$1
	shift
	pgo ../out ../err "$@"
	pgo_status 1 "pgo-run $*"
	expect_grep "^pgo-run: workload '$bad': cannot run 'nosuch-command': no script here, shell builtin or command on PATH has that name$" ../err
	expect_no_grep '^\[instrumented build\]' ../out
	[[ ! -e .pgo && ! -e prog ]] || fail "pgo-run $* ran something"
}
refused 'nosuch-command 1' 'nosuch-command 1'
refused 'A=1 B=2 nosuch-command' './prog 1' 'A=1 B=2 nosuch-command'
refused 'nosuch-command' './prog 0' --weight 2:nosuch-command

# a script here needs ./ once it has arguments: sh looks on PATH only
printf './prog 1 > /dev/null\n' > train.sh
pgo ../out ../err 'train.sh 1'
pgo_status 1 "pgo-run 'train.sh 1'"
expect_grep "^pgo-run: workload 'train.sh 1': cannot run 'train.sh': sh looks for it on PATH only; write ./train.sh$" ../err
[[ ! -e .pgo ]] || fail "pgo-run 'train.sh 1' ran something"

# what sh can run goes ahead: a script named as it is, a builtin, a
# program the build makes, an assignment before it, a quoted word
pgo_ok ../out ../err train.sh 'cd . && ./prog 1' 'X=1 ./prog 0' '"./prog" 1'
expect_grep '^\[train 4/4\]' ../out
