#!/bin/bash
# A weak undefined reference does not pull an archive member; a strong
# reference to the same symbol before the archive does; a strong one after
# the archive comes too late.
. "$(dirname "$0")/lib.sh"

cat > mw.c <<'EOF'
extern int f(void) __attribute__((weak));
int main(void) { return f ? f() : 0; }
EOF
cat > ms.c <<'EOF'
int f(void);
int strong(void) { return f(); }
EOF
cat > f.c <<'EOF'
int f(void) { return 1; }
EOF
cc_objs -- mw.c ms.c f.c
make_archive libf.a f.o
here=$(pwd)

# weak only: nothing, and no undefined-reference warning
oracle_ld weak -e main mw.o libf.a
expect_empty weak.expected "ld's list for a weak reference (fixture check)"
expect_no_grep "undefined reference" weak.dep.err "deporder's warnings (weak reference)"
oracle_cc weakcc gcc -o prog mw.o libf.a

# weak, then strong, then the archive: pulled
oracle_ld strong -e main mw.o ms.o libf.a
printf '%s\n' "$here/libf.a(f.o)" > want
expect_same want strong.expected "ld's list (fixture check)"
oracle_cc strongcc gcc -o prog2 mw.o ms.o libf.a

# the strong reference comes after the archive: not pulled, undefined
ORACLE_LINK_MAY_FAIL=1
oracle_ld late --ld-only --noinhibit-exec -- -e main mw.o libf.a ms.o
expect_empty late.expected "ld's list (fixture check)"
expect_grep "^deporder: warning: .*ms\.o: undefined reference to 'f'\$" late.dep.err "deporder's warnings"
