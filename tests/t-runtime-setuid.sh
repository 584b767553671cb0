#!/bin/bash
# A setuid-root program linked with a linkopt runtime, run by an
# unprivileged user who points CYGTRACE_DIR / LIKELY_CHECK_DIR at a folder
# only root may write: the runtimes read their variables with
# secure_getenv, so nothing appears there (before, a root-owned file did,
# with the caller's argv in it).  The program runs as usual.
. "$(dirname "$0")/lib.sh"
need gcc setpriv
(( $(id -u) == 0 )) || skip "needs root to make a setuid-root program"
CYG=$TOP/cygtrace
LC=$TOP/likely-check/likely-check
[[ -f $CYG/libcygtrace.a && -x $LC ]] || fail "the runtimes are not built"

chmod 755 .
mkdir rootonly && chmod 700 rootonly
cat > prog.c <<'EOF2'
#include <stdio.h>
__attribute__((noinline)) int work(int x) { return __builtin_expect(x > 2, 0) ? x : 1; }
int main(int argc, char **argv) { printf("%d\n", work(argc)); return 0; }
EOF2
gcc -O1 -finstrument-functions -o cyg prog.c "$CYG/libcygtrace.a" -lpthread || fail "cannot build cyg"
gcc -O1 $("$LC" cflags) -o lik prog.c $("$LC" ldflags) || fail "cannot build lik"
cp "$TOP"/likely-check/liblikely-check.so . 2>/dev/null || true
chmod 4755 cyg lik
[[ -u cyg ]] || skip "this file system does not keep the setuid bit"

run_as_nobody() { # VAR=VALUE PROGRAM
	env "$1" setpriv --reuid=65534 --regid=65534 --clear-groups "./$2" > "$2.out" 2> "$2.err"
}
run_as_nobody CYGTRACE_DIR="$PWD/rootonly" cyg || fail "cyg failed: $(head -3 cyg.err)"
run_as_nobody LIKELY_CHECK_DIR="$PWD/rootonly" lik || fail "lik failed: $(head -3 lik.err)"
[[ $(cat cyg.out) == 1 && $(cat lik.out) == 1 ]] || fail "a program's output changed"
leftover=$(ls -A rootonly)
[[ -z $leftover ]] || fail "a file appeared in the root-only folder: $leftover"
exit 0
