#!/bin/bash
# likely-check in a real build: $(likely-check cflags) goes to every
# compile of a project, assembly files with a C preprocessor pass included
# (zstd's huf_decompress_amd64.S broke: the header is C); `likely-check run
# --dir OUT` creates OUT (and its parents) when missing.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
need gcc

cat > twice.S <<'EOF2'
	.text
	.globl	twice
	.type	twice, @function
twice:
	leal	(%rdi,%rdi), %eax
	ret
	.size	twice, .-twice
	.section .note.GNU-stack,"",@progbits
EOF2
cat > prog.c <<'EOF2'
#include <stdio.h>
int twice(int);
int main(int argc, char **argv)
{
	(void)argv;
	if (__builtin_expect(argc > 5, 0))
		return 1;
	printf("%d\n", twice(argc));
	return 0;
}
EOF2
gcc -O2 $("$LC" cflags) -c twice.S 2> as.err || fail "the .S file with likely-check cflags: $(head -3 as.err)"
gcc -O2 $("$LC" cflags) -c prog.c || fail "prog.c with likely-check cflags"
gcc -o prog prog.o twice.o || fail "link"
"$LC" run --dir out/deeper -- ./prog > got.out 2> run.err || fail "likely-check run --dir out/deeper: $(head -3 run.err)"
echo 2 > want.out
expect_same want.out got.out "the program's output"
ls out/deeper/likely-check.* > /dev/null 2>&1 || fail "no data file in out/deeper: $(cat run.err)"
"$LC" report out/deeper/likely-check.* > report.txt || fail "likely-check report"
expect_grep 'prog\.c:6' report.txt "the report"
# A --dir that exists as a file is refused before the program runs.
touch plain
status=0
"$LC" run --dir plain -- ./prog > /dev/null 2> file.err || status=$?
((status == 1)) || fail "--dir naming a file: status $status"
expect_grep "^likely-check: plain: " file.err "--dir naming a file"
exit 0
