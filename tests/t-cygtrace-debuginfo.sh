#!/bin/bash
# cygtrace-resolve on a stripped program: its functions come from its
# debug file, found by build-id under a folder of CYGTRACE_DEBUGINFO_PATH,
# as from the unstripped program; without that path only .dynsym is read.
# A debug file of another build under that build-id is not used, and a
# program rebuilt since the trace is refused.
. "$(dirname "$0")/lib.sh"
need gcc objcopy strip readelf
CYG=$TOP/cygtrace
[[ -f $CYG/libcygtrace.so && -x $CYG/cygtrace-resolve ]] || fail "cygtrace is not built"

cat > prog.c <<'EOF2'
#include <stdio.h>
static __attribute__((noinline)) int helper(int x) { return x * FACTOR; }
__attribute__((noinline)) int step(int x) { return helper(x) + 1; }
int main(void)
{
	printf("%d\n", step(3));
	return 0;
}
EOF2
build() { # OUT FACTOR
	gcc -O1 -g -finstrument-functions -DFACTOR="$2" -o "$1" prog.c -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG" ||
		fail "cannot build $1"
}
build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
build prog 2
build other 3
id=$(build_id prog)
[[ -n $id && $id != "$(build_id other)" ]] || fail "expected two different build-ids"
mkdir -p "debug/.build-id/${id:0:2}" traces
objcopy --only-keep-debug prog prog.debug && objcopy --only-keep-debug other other.debug ||
	fail "objcopy --only-keep-debug failed"
cp prog.debug "debug/.build-id/${id:0:2}/${id:2}.debug"
CYGTRACE_DIR=$PWD/traces CYGTRACE_EDGES=1 ./prog > /dev/null || fail "prog failed"
"$CYG/cygtrace-resolve" traces/cygtrace.* 2> /dev/null | awk '{ print $5, $6 }' > unstripped
printf '%s\n' '.text main' '.text step' '.text helper' > want
expect_same want unstripped "the unstripped program"
strip --strip-all prog || fail "strip failed"
[[ $(build_id prog) == "$id" ]] || fail "strip changed the build-id"

# The debug file is found by build-id, along a path of several folders.
CYGTRACE_DEBUGINFO_PATH=$PWD/nowhere:$PWD/debug "$CYG/cygtrace-resolve" traces/cygtrace.* > stripped.out 2> stripped.err ||
	{ cat stripped.err >&2; fail "resolve failed on the stripped program"; }
awk '{ print $5, $6 }' stripped.out > got
expect_same want got "the stripped program with its debug file"
CYGTRACE_DEBUGINFO_PATH=$PWD/debug "$CYG/cygtrace-resolve" --edges traces/cygtrace.* | sort > edges
printf '%s\n' 'main step 1' 'step helper 1' > want-edges
expect_same want-edges edges "the stripped program's call graph"

# Without the path: .dynsym, which holds none of them; dropped, not guessed.
"$CYG/cygtrace-resolve" traces/cygtrace.* > nodebug.out 2> nodebug.err || fail "resolve failed without a debug path"
expect_empty nodebug.out "no debug path: the first entries"
expect_grep ': 0 resolved, 3 dropped' nodebug.err "no debug path"

# Another build's debug file under this build-id: not used.
cp other.debug "debug/.build-id/${id:0:2}/${id:2}.debug"
CYGTRACE_DEBUGINFO_PATH=$PWD/debug "$CYG/cygtrace-resolve" traces/cygtrace.* > wrong.out 2> wrong.err ||
	fail "resolve failed with a wrong debug file"
expect_empty wrong.out "a wrong debug file: the first entries"
expect_grep ': 0 resolved, 3 dropped' wrong.err "a wrong debug file"

# The program rebuilt (and stripped) since the trace: refused.
cp prog.debug "debug/.build-id/${id:0:2}/${id:2}.debug"
cp other prog && strip --strip-all prog
status=0
CYGTRACE_DEBUGINFO_PATH=$PWD/debug "$CYG/cygtrace-resolve" traces/cygtrace.* > /dev/null 2> stale.err || status=$?
((status == 1)) || fail "a stale trace: status $status"
expect_grep "^cygtrace-resolve: traces/cygtrace\.[0-9]+\.[0-9a-f]{8}: $PWD/prog: build-id $id in the trace, [0-9a-f]+ in the file: the file is not the one that ran$" \
	stale.err "a stale trace"
exit 0
