#!/bin/bash
# The counting runtime (likely-check) and cygtrace write where they were
# asked when the program changes directory: a relative LIKELY_CHECK_DIR or
# CYGTRACE_DIR, or none (the current directory), is the folder as it was
# when the program started.  Before, the file went to the folder of the
# same name under wherever the program ended (or was lost, with a message,
# when there was none).
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
CYG=$TOP/cygtrace
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
[[ -f $CYG/libcygtrace.so ]] || fail "cygtrace is not built (run make)"
need gcc

cat > prog.c <<'EOF2'
#include <stdio.h>
#include <unistd.h>
#define likely(x) __builtin_expect(!!(x), 1)
__attribute__((noinline)) int work(int x) { return likely(x > 0) ? x : -x; }
int main(int argc, char **argv)
{
	(void)argc;
	if (chdir(argv[1]) != 0)
		return 2;
	printf("%d\n", work(3));
	return 0;
}
EOF2
gcc -O2 $("$LC" cflags) -o prog-lc prog.c $("$LC" ldflags) || fail "cannot build the counting program"
gcc -O1 -finstrument-functions -o prog-cyg prog.c -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG" ||
	fail "cannot build the traced program"
mkdir -p out elsewhere/out start
echo 3 > want.out

expect_output want.out lc.out "the counting program" env LIKELY_CHECK_DIR=out ./prog-lc elsewhere
expect_empty lc.out.err "the counting program: stderr"
expect_output want.out cyg.out "the traced program" env CYGTRACE_DIR=out ./prog-cyg elsewhere
expect_empty cyg.out.err "the traced program: stderr"
ls out > files
expect_lines files 2 "the files in out"
expect_grep '^likely-check\.[0-9]+\.[0-9a-f]{8}$' files "the files in out"
expect_grep '^cygtrace\.[0-9]+\.[0-9a-f]{8}$' files "the files in out"
ls -A elsewhere/out > stray
expect_empty stray "the files in elsewhere/out"

# no folder named: the current directory at the start
(cd start && env -u LIKELY_CHECK_DIR ../prog-lc ../elsewhere > ../lc2.out 2> ../lc2.out.err &&
	env -u CYGTRACE_DIR ../prog-cyg ../elsewhere > ../cyg2.out 2> ../cyg2.out.err) ||
	fail "the programs failed in start: $(cat lc2.out.err cyg2.out.err)"
expect_same want.out lc2.out "the counting program's output"
expect_same want.out cyg2.out "the traced program's output"
ls start > files
expect_lines files 2 "the files in start"
ls elsewhere > stray
printf 'out\n' > want.stray
expect_same want.stray stray "the files in elsewhere"
exit 0
