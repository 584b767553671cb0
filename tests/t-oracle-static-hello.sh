#!/bin/bash
# A static C hello world: crt files, libc.a, libgcc.a, libgcc_eh.a in the
# group gcc -static forms.  Checked through --cc and through the very
# linker command line gcc -### prints, given as plain inputs.
. "$(dirname "$0")/lib.sh"
[[ -f $(gcc -print-file-name=libc.a) && $(gcc -print-file-name=libc.a) == /* ]] ||
	skip "no static libc.a"

cat > hello.c <<'EOF'
#include <stdio.h>
int main(void) { printf("hello, %s\n", "world"); return 0; }
EOF
gcc -O2 -c hello.c || fail "cannot compile hello.c"
oracle_cc cc gcc -static -o hello hello.o
[[ $(./hello) == 'hello, world' ]] || fail "the reference program does not run"
(( $(wc -l < cc.expected) > 20 )) || fail "fixture: expected many libc.a members, got $(wc -l < cc.expected)"
grep -q '/libc\.a(printf\.o)$' cc.expected || fail "fixture: printf.o not in ld's list"
grep -q '/libgcc_eh\.a(' cc.expected || grep -q '/libgcc\.a(' cc.expected ||
	fail "fixture: no libgcc member in ld's list"

# The same link as plain ld inputs: the collect2 command line of gcc -###.
gcc -### -static -o hello2 hello.o 2> driver.txt || fail "gcc -### failed"
line=$(grep -E '^ "?[^ ]*(collect2|ld)"? ' driver.txt | tail -n 1)
[[ -n $line ]] || fail "no linker line in gcc -### output"
eval "set -- $line"
shift
oracle_ld plain "$@"
expect_same cc.expected plain.expected "ld's list for the same link (fixture check)"
