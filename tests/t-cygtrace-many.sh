#!/bin/bash
# cygtrace with more distinct functions than it has room for (300,000 hook
# calls with distinct addresses: large C++ programs and plugin load/unload
# cycles get there): it stops recording, says so once on stderr and once
# in the trace, and the program runs on to its normal end.  Before, the
# table filled and the hook's probe loop never ended: the host hung.
. "$(dirname "$0")/lib.sh"
need gcc timeout
CYG=$TOP/cygtrace
[[ -f $CYG/libcygtrace.so ]] || fail "cygtrace is not built"

cat > many.c <<'EOF2'
#include <stdio.h>
void __cyg_profile_func_enter(void *, void *);
static char area[300000];
int main(void)
{
	unsigned i;

	for (i = 0; i < 300000; i++)
		__cyg_profile_func_enter(area + i, main);
	puts("done");
	return 0;
}
EOF2
gcc -O1 -o many many.c -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG" || fail "cannot build many"
mkdir out
status=0
CYGTRACE_DIR=$PWD/out timeout 60 ./many > stdout 2> stderr || status=$?
((status != 124)) || fail "the program hung (killed after 60 s)"
((status == 0)) || fail "the program exited $status: $(head -3 stderr)"
[[ $(cat stdout) == done ]] || fail "the program's output changed: $(head -2 stdout)"
[[ $(grep -c 'cygtrace: record buffer: full' stderr) == 1 ]] || fail "not said once on stderr: $(cat stderr)"
trace=$(ls out/cygtrace.*)
grep -q '^# full: ' "$trace" || fail "the trace does not say it is incomplete"
[[ $(tail -n 1 "$trace") == '# end' ]] || fail "the trace was not completed"
"$TOP/cygtrace/cygtrace-resolve" "$trace" > /dev/null 2> resolve.err
expect_grep "record buffer filled up" resolve.err "cygtrace-resolve's warning"
exit 0
