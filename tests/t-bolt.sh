#!/bin/bash
# linkopt-bolt on a real program with the real llvm-bolt-16: the profile
# pagein --branches counted and the start-up order go in, the rewritten
# binary runs the check and replaces nothing before; pagein then sees the
# code BOLT moved into its new segment (--new-segment) as the binary's own.  Every input
# that does not belong is refused with nothing written: a trace of another
# build, a trace without branches, a binary linked without relocations, a
# trace cut short, a rewritten binary whose check output differs, and a
# check that never runs it.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need llvm-bolt-16
LB=$TOP/linkopt-bolt/linkopt-bolt
[[ -x $LB ]] || fail "linkopt-bolt is not built"

cp "$TESTDIR/bolt-prog.c" prog.c
gcc -O2 -g -Wl,--emit-relocs -o prog prog.c || fail "cannot build prog"
"$PAGEIN" --granularity=function --branches=yes --output="$PWD/startup.trace" -- ./prog 2000 > /dev/null 2> err ||
	fail "pagein: $(head -3 err)"
"$LB" --startup startup.trace --new-segment --check './%b 5000' --keep kept -o prog.bolt ./prog > out 2> err ||
	fail "linkopt-bolt failed: $(cat err)"
[[ -x prog.bolt ]] || fail "no executable prog.bolt"
[[ $(./prog.bolt 777) = $(./prog 777) ]] || fail "the rewritten binary prints another result"
expect_grep '^check: ' out "linkopt-bolt's summary"
expect_grep 'out of [0-9]+ functions in the binary' out "BOLT's profile line"
# the order: the start-up functions first, in the order the run entered them
[[ $(grep -n -x -m1 main kept/order.txt | cut -d: -f1) -lt $(grep -n -x -m1 hot kept/order.txt | cut -d: -f1) ]] ||
	fail "main does not come before hot in the order: $(head kept/order.txt)"
grep -q -x cold_path kept/order.txt && fail "cold_path, never run, is in the order"
# the profile BOLT read: hot's branches, with pagein's counts
grep -q ' hot ' kept/profile.fdata || fail "no branch of hot in the profile BOLT read: $(head kept/profile.fdata)"
# BOLT moved hot into a new segment; pagein counts its pages as prog.bolt's
hot_new=$(nm prog.bolt | awk '$3 == "hot" { print $1; exit }')
hot_old=$(nm prog | awk '$3 == "hot" { print $1; exit }')
[[ $hot_new != "$hot_old" ]] || fail "BOLT did not move hot ($hot_old)"
"$PAGEIN" --granularity=function --output="$PWD/after.trace" -- ./prog.bolt 2000 > /dev/null 2> err || fail "pagein: $(head -3 err)"
base=$(base_of after.trace "$PWD/prog.bolt")
hot_addr=$(printf '0x%x' $(( base + 0x$hot_new )))
awk -v a="$hot_addr" '$3 == "F" && $2 == a' after.trace | grep -q "(in $PWD/prog.bolt)" ||
	fail "pagein does not attribute hot's entry in BOLT's segment ($hot_addr) to prog.bolt: $(grep ' F ' after.trace | grep hot)"
"$TOP/pagein/pagein-report" --format=json after.trace > report.json || fail "pagein-report"
grep -q "\"path\": \"$PWD/prog.bolt\"" report.json || fail "pagein-report has no prog.bolt"

# a shared library, traced in its host, checked through LD_LIBRARY_PATH
cat > lib.c <<'EOF2'
volatile int lib_sink;
__attribute__((noinline)) static void lib_cold(int x) { lib_sink += x; }
int lib_work(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++) {
		if (i == 99999)
			lib_cold(i);
		s += (i * 31) & 7;
	}
	return s;
}
EOF2
printf '#include <stdio.h>\nint lib_work(int);\nint main(void) { printf("%%d\\n", lib_work(5000)); return 0; }\n' > host.c
gcc -O2 -g -fPIC -shared -Wl,--emit-relocs -Wl,-soname,libwork.so.1 -o libwork.so lib.c || fail "cannot build libwork.so"
mkdir -p libdir && ln -sf ../libwork.so libdir/libwork.so.1
gcc -O2 -o host host.c -L. -l:libwork.so || fail "cannot build host"
LD_LIBRARY_PATH=libdir "$PAGEIN" --granularity=function --branches=yes --output="$PWD/lib.trace" -- ./host > host.out 2> err ||
	fail "pagein on host: $(head -3 err)"
"$LB" --startup lib.trace --check 'LD_LIBRARY_PATH=%d ./host' -o libwork.bolt.so ./libwork.so > lib.out 2> lib.err ||
	fail "linkopt-bolt on a shared library failed: $(cat lib.err)"
ln -sf ../libwork.bolt.so libdir/libwork.so.1
[[ $(LD_LIBRARY_PATH=libdir ./host) = $(cat host.out) ]] || fail "the host prints another result with the rewritten library"
nm libwork.bolt.so | grep -q ' lib_work$' || fail "the rewritten library lost lib_work"

# refusals: exit 1, nothing written, an earlier OUTPUT untouched
echo previous > kept.out
refused() { # WHAT PATTERN ARGS...
	local what=$1 pattern=$2
	shift 2
	if "$LB" "$@" -o kept.out > r.out 2> r.err; then
		fail "$what: linkopt-bolt exited 0"
	fi
	expect_grep "$pattern" r.err "$what"
	[[ $(cat kept.out) = previous ]] || fail "$what: the earlier output was replaced"
	ls -d kept.out.tmp* > /dev/null 2>&1 && fail "$what: $(ls -d kept.out.tmp*) left behind"
}
gcc -O2 -g -Wl,--emit-relocs -DOTHER -o other prog.c -DEXTRA=1 -Wl,--build-id=sha1 -Wl,-z,norelro || fail "cannot build other"
cmp -s prog other && fail "other is the same file as prog"
refused "a trace of another build" "is not a trace of ./other" --startup startup.trace --no-check ./other
gcc -O2 -g -o norelocs prog.c || fail "cannot build norelocs"
refused "a binary without relocations" "has no relocations.*--emit-relocs" --startup startup.trace --no-check ./norelocs
"$PAGEIN" --granularity=function --output="$PWD/nobranch.trace" -- ./prog 10 > /dev/null 2> err || fail "pagein: $(head -3 err)"
refused "a trace without branches" "holds no branch.*--branches=yes" --profile nobranch.trace --no-check ./prog
head -n 40 startup.trace > cut.trace
refused "a trace cut short" "cut short" --startup cut.trace --no-check ./prog
refused "a check whose output differs" "does not run --check" --startup startup.trace --check './%b 10; cksum < %b' ./prog
refused "a check that never runs %b" "no process of the check ran %b" --startup startup.trace --check 'echo %b' ./prog
refused "no check" "no --check" --startup startup.trace ./prog
exit 0
