#!/bin/bash
# An archive is searched only at its place on the command line: a member
# pulled from a later archive that references the earlier one stays
# undefined (ld fails), and deporder reports the undefined reference.
. "$(dirname "$0")/lib.sh"

cat > m.c <<'EOF'
int a(void);
int main(void) { return a(); }
EOF
cat > a.c <<'EOF'
int b(void);
int a(void) { return b(); }
EOF
cat > a2.c <<'EOF'
int a2(void) { return 7; }
EOF
cat > b.c <<'EOF'
int a2(void);
int b(void) { return a2(); }
EOF
cc_objs -- m.c a.c a2.c b.c
make_archive liba.a a.o a2.o
make_archive libb.a b.o

here=$(pwd)
printf '%s\n' "$here/liba.a(a.o)" "$here/libb.a(b.o)" > want
if ld -o sanity -e main m.o liba.a libb.a > sanity.err 2>&1; then
	fail "fixture: ld should fail with an undefined reference to a2"
fi
grep -q "undefined reference to \`a2'" sanity.err || fail "fixture: unexpected ld error: $(cat sanity.err)"

ORACLE_LINK_MAY_FAIL=1
oracle_ld plain --ld-only --noinhibit-exec -- -e main m.o liba.a libb.a
expect_same want plain.expected "ld's own list (fixture check)"
expect_grep "^deporder: warning: .*b\.o.*: undefined reference to 'a2'\$" plain.dep.err "deporder's warnings"
expect_no_grep "undefined reference to '(a|b)'" plain.dep.err "deporder's warnings"

ORACLE_CC_EXTRA=(-Wl,--unresolved-symbols=ignore-all)
oracle_cc cc gcc -o prog m.o liba.a libb.a
expect_same want cc.expected "ld's own list through gcc (fixture check)"
expect_grep "^deporder: warning: .*b\.o.*: undefined reference to 'a2'\$" cc.dep.err "deporder's warnings (--cc)"
