#!/bin/bash
# CYGTRACE_STOP and CYGTRACE_EDGES values that cannot be meant are said
# once on stderr and change nothing: before, 18446744073710ms overflowed
# and stopped after one record, -5ms and 0ms were silently "never", and
# CYGTRACE_EDGES=-1 sampled one call in four billion.  The program's
# output and status never change.
. "$(dirname "$0")/lib.sh"
need gcc
CYG=$TOP/cygtrace
[[ -f $CYG/libcygtrace.so ]] || fail "cygtrace is not built"

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <time.h>
__attribute__((noinline)) int a(int x) { return x + 1; }
__attribute__((noinline)) int b(int x) { return x * 2; }
int main(void)
{
	struct timespec ts = { 0, 20000000 };
	int s = a(1);
	nanosleep(&ts, NULL);
	s += b(s);
	printf("%d\n", s);
	return 0;
}
EOF2
gcc -O1 -finstrument-functions -o prog prog.c -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG" || fail "cannot build prog"

# variable=value|what stderr must say|what the trace must hold
while IFS='|' read -r setting said holds; do
	rm -rf out && mkdir out
	env CYGTRACE_DIR="$PWD/out" "$setting" ./prog > stdout 2> stderr || fail "$setting: the program failed"
	[[ $(cat stdout) == 6 ]] || fail "$setting: the program's output changed"
	[[ $(grep -c "$said" stderr) == 1 ]] || fail "$setting: stderr does not say '$said' once: $(cat stderr)"
	trace=$(ls out/cygtrace.*)
	grep -q "$holds" "$trace" || fail "$setting: the trace lacks /$holds/"
	[[ $(grep -c '^[0-9]' "$trace") -ge 3 ]] || fail "$setting: recording stopped early: $(grep -c '^[0-9]' "$trace") records"
done <<'EOF2'
CYGTRACE_STOP=18446744073710ms|CYGTRACE_STOP: a time must be 1ms|^# reason: exit$
CYGTRACE_STOP=0ms|CYGTRACE_STOP: a time must be 1ms|^# reason: exit$
CYGTRACE_STOP=-5ms|CYGTRACE_STOP: a time must be 1ms|^# reason: exit$
CYGTRACE_EDGES=-1|CYGTRACE_EDGES: must be 0 (off) or N|^# reason: exit$
EOF2
# A time that can be meant still stops recording.
rm -rf out && mkdir out
CYGTRACE_DIR=$PWD/out CYGTRACE_STOP=5ms ./prog > /dev/null 2> stderr || fail "5ms: the program failed"
expect_empty stderr "stderr with CYGTRACE_STOP=5ms"
grep -q '^# reason: stop$' out/cygtrace.* || fail "CYGTRACE_STOP=5ms did not stop"
exit 0
