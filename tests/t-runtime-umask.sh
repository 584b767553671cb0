#!/bin/bash
# The files the runtimes write into the traced program's folder take
# their mode from the program's umask, as the program's own files and
# every other output of the toolkit do: cygtrace's traces and
# likely-check's counts were always 0600 (mkstemp), under umask 002 as
# under 077.
. "$(dirname "$0")/lib.sh"
need gcc
LC=$TOP/likely-check/likely-check
CYG=$TOP/cygtrace
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
[[ -f $CYG/libcygtrace.so ]] || fail "cygtrace is not built (run make)"

cat > prog.c <<'EOF2'
#define unlikely(x) __builtin_expect(!!(x), 0)
static volatile int sink;
__attribute__((noinline)) static void work(int i)
{
	if (unlikely(i % 10 == 0))
		sink++;
}
int main(void)
{
	for (int i = 0; i < 100; i++)
		work(i);
	return 0;
}
EOF2
gcc -O1 $("$LC" cflags) -o count prog.c $("$LC" ldflags) || fail "cannot build the counting program"
gcc -O1 -finstrument-functions -o traced prog.c -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG" ||
	fail "cannot build the traced program"

for row in "002 664" "022 644" "077 600" "027 640"; do
	set -- $row
	mkdir "u$1"
	(umask "$1" && cd "u$1" && ../count && ../traced) > "u$1.out" 2>&1 ||
		fail "umask $1: a program failed: $(cat "u$1.out")"
	expect_empty "u$1.out" "umask $1: the programs' output"
	for f in "u$1"/likely-check.* "u$1"/cygtrace.*; do
		[[ -f $f ]] || fail "umask $1: no file $f"
		mode=$(stat -c %a "$f")
		[[ $mode == "$2" ]] || fail "umask $1: $f has mode $mode, not $2"
	done
	ls -A "u$1" > "u$1.files"
	expect_lines "u$1.files" 2 "umask $1: one counts file and one trace"
done
exit 0
