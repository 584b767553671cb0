#!/bin/bash
# A section name that is GNU ld script syntax reaches deporder's script as
# a pattern for that section alone.  gcc's section attribute takes any name:
# written bare, ".text.evil)*(.fini_array" closes the pattern and pulls every
# .fini_array into .text (destructors no longer run, DT_TEXTREL appears).
# Quoted, with its wildcard in brackets, the relinked program prints what
# the default link prints, runs its destructors, has no DT_TEXTREL and the
# .fini_array of the default link; ".text.a*b" matches itself and not
# ".text.aXb"; a name ld reads bare stays bare.
. "$(dirname "$0")/lib.sh"
need_deporder
need readelf

cat > m.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#define SECTION(name) __attribute__((noinline, section(name)))
SECTION(".text.evil)*(.fini_array") int evil(int x) { return x * 3; }
SECTION(".text.a*b") int star(int x) { return x + 1; }
/* called by nothing: in no order, and no pattern of the script may take it */
SECTION(".text.aXb") int plain(int x) { return x + 2; }
static void bye(void) { puts("atexit handler ran"); }
__attribute__((destructor)) static void dtor(void) { puts("destructor ran"); }
int main(int argc, char **argv)
{
	(void)argv;
	atexit(bye);
	printf("%d\n", evil(argc) + star(argc));
	return 0;
}
EOF2
cc_obj m.o m.c -ffunction-sections
gcc -o prog-default m.o || fail "the default link"
run_ok want.out ./prog-default
expect_grep '^destructor ran$' want.out "the default program's output"
readelf -SW prog-default | awk '$2 == ".fini_array" { print $6 }' > fini-default
expect_nonempty fini-default "the default link's .fini_array"

deporder_ok order.ld order.err -q --granularity=section --emit=gnu-ld --cc -- gcc -o prog m.o

status=0
gcc -o prog m.o -Wl,-T,order.ld -Wl,-Map=prog.map > link.err 2>&1 || status=$?
((status == 0)) || { cat link.err >&2; fail "the link with deporder's script: exit status $status"; }
expect_no_grep 'TEXTREL|read-only section' link.err "the linker's warnings"
expect_output want.out got.out "the relinked program's output" ./prog
readelf -dW prog > dynamic.txt || fail "readelf -d prog"
expect_no_grep 'TEXTREL' dynamic.txt "the relinked program's dynamic section"
readelf -SW prog | awk '$2 == ".fini_array" { print $6 }' > fini-prog
expect_same fini-default fini-prog "the size of .fini_array"

expect_grep '^    m\.o\("\.text\.evil\)\[\*\]\(\.fini_array"\)$' order.ld "the hostile section's pattern"
expect_grep '^    m\.o\("\.text\.a\[\*\]b"\)$' order.ld "the pattern of .text.a*b"
expect_grep '^    m\.o\(\.text\.main\)$' order.ld "a plain name's pattern"
expect_no_grep 'aXb' order.ld "the script"

# The statement of .text.a[*]b in the map: the input sections it took.
awk '$0 == " m.o(.text.a[*]b)" { on = 1; next } on && /^ [^ ]+\(/ { on = 0 } on && /^ \.text/ { print $1 }' \
	prog.map > star.took
echo '.text.a*b' > want.took
expect_same want.took star.took "the sections the pattern of .text.a*b took"
exit 0
