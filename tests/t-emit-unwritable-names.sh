#!/bin/bash
# A name that a linker's file cannot hold so that the linker reads that
# name and no other is refused, naming it, with exit status 1 and no file
# written (--out leaves the old one): in a GNU ld script, a section with a
# double quote (no quoted name holds one); in gold's section ordering file,
# a section with a wildcard (gold reads the line as a glob that also orders
# other sections); in lld's and mold's symbol ordering file, a symbol with
# '#' (a comment there).
. "$(dirname "$0")/lib.sh"
need_deporder

cat > n.s <<'EOF2'
	.section ".text.q\"x","ax",@progbits
	.globl quoted
	.type quoted, @function
quoted:
	leal 3(%rdi), %eax
	ret
	.size quoted, .-quoted
	.section .text.hashy,"ax",@progbits
	.globl "f#1"
	.type "f#1", @function
"f#1":
	leal 1(%rdi), %eax
	ret
	.size "f#1", .-"f#1"
	.section ".text.a*b","ax",@progbits
	.globl star
	.type star, @function
star:
	leal 2(%rdi), %eax
	ret
	.size star, .-star
	.section .note.GNU-stack,"",@progbits
EOF2
cat > m.c <<'EOF2'
#include <stdio.h>
int quoted(int);
int hashy(int) __asm__("\"f#1\"");
int star(int);
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", quoted(argc) + hashy(argc) + star(argc));
	return 0;
}
EOF2
gcc -c -o n.o n.s || fail "cannot assemble n.s"
cc_obj m.o m.c -ffunction-sections
link=(--cc -- gcc -o prog m.o n.o)

# refused FORM MESSAGE: deporder --emit=FORM --out old.txt fails with MESSAGE
# alone on stderr and leaves old.txt as it was.
refused() {
	echo "an order of an earlier run" > old.txt
	cp old.txt want.txt
	DEP_ERR=$1.err
	run_deporder "$1.out" "$1.err" -q --granularity=section --emit="$1" --out old.txt "${link[@]}"
	expect_status 1 "deporder --emit=$1"
	printf '%s\n' "$2" > "$1.want"
	expect_same "$1.want" "$1.err" "deporder --emit=$1's message"
	expect_empty "$1.out" "deporder --emit=$1's standard output"
	expect_same want.txt old.txt "the file of --out after a refusal"
}

refused gnu-ld "deporder: n.o: section \".text.q\\\"x\" cannot be written in a GNU ld script: it holds a double quote, which no name in a GNU ld script can"
refused gold "deporder: n.o: section '.text.a*b' cannot be written in gold's --section-ordering-file: gold reads '*', '?' and '[' as a glob, which would order other sections too"
refused lld "deporder: n.o: symbol 'f#1' cannot be written in lld's and mold's --symbol-ordering-file: it holds '#', which starts a comment in a symbol ordering file"
refused mold "deporder: n.o: symbol 'f#1' cannot be written in lld's and mold's --symbol-ordering-file: it holds '#', which starts a comment in a symbol ordering file"
exit 0
