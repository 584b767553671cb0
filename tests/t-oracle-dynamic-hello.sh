#!/bin/bash
# A dynamic hello world: libc.so is a linker script, GROUP(libc.so.6
# libc_nonshared.a AS_NEEDED(ld-linux)); atexit and at_quick_exit come from
# libc_nonshared.a.
. "$(dirname "$0")/lib.sh"

cat > hello.c <<'EOF'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
EOF
cat > hexit.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
static void bye(void) { puts("bye"); }
int main(void) { atexit(bye); at_quick_exit(bye); puts("hello"); return 0; }
EOF
gcc -O2 -c hello.c && gcc -O2 -c hexit.c || fail "cannot compile"
oracle_cc hello gcc -o hello hello.o
oracle_cc hexit gcc -o hexit hexit.o
grep -q '/libc_nonshared\.a(atexit\.oS)$' hexit.expected ||
	skip "atexit does not come from libc_nonshared.a on this system"
./hexit > /dev/null || fail "the reference program does not run"
oracle_cc nopie gcc -no-pie -o hexit2 hexit.o
