#!/bin/bash
# Two members define the same symbol: the first in the symbol index is
# pulled, the second only if something else in it is wanted (then ld
# reports a multiple definition, allowed here with -z muldefs).
. "$(dirname "$0")/lib.sh"

cat > m.c <<'EOF'
int f(void);
int main(void) { return f(); }
EOF
cat > mg.c <<'EOF'
int f(void);
int g(void);
int main(void) { return f() + g(); }
EOF
cat > d1.c <<'EOF'
int f(void) { return 1; }
int d1_only(void) { return 2; }
EOF
cat > d2.c <<'EOF'
int f(void) { return 3; }
int g(void) { return 4; }
EOF
cc_objs -- m.c mg.c d1.c d2.c
make_archive lib12.a d1.o d2.o
make_archive lib21.a d2.o d1.o
here=$(pwd)

oracle_ld first -e main m.o lib12.a
printf '%s\n' "$here/lib12.a(d1.o)" > want
expect_same want first.expected "ld's list (fixture check)"
oracle_ld second -e main m.o lib21.a
printf '%s\n' "$here/lib21.a(d2.o)" > want
expect_same want second.expected "ld's list (fixture check)"
oracle_cc firstcc gcc -o prog m.o lib12.a

ORACLE_LINK_MAY_FAIL=1
oracle_ld both --ld-only -z muldefs -- -e main mg.o lib12.a
printf '%s\n' "$here/lib12.a(d1.o)" "$here/lib12.a(d2.o)" > want
expect_same want both.expected "ld's list (fixture check)"

# two members with the same name (ar q): told apart by their place
mkdir one two
cat > one/d.c <<'EOF'
int f(void) { return 1; }
EOF
cat > two/d.c <<'EOF'
int g(void) { return 4; }
EOF
cc_objs -- one/d.c two/d.c
rm -f libsame.a
ar q libsame.a one/d.o two/d.o && ranlib libsame.a || fail "cannot build libsame.a"
[[ $(ar t libsame.a | tr '\n' ' ') == 'd.o d.o ' ]] || fail "fixture: libsame.a members: $(ar t libsame.a)"
ORACLE_LINK_MAY_FAIL=0
oracle_ld same -e main mg.o libsame.a
printf '%s\n' "$here/libsame.a(d.o)" "$here/libsame.a(d.o)" > want
expect_same want same.expected "ld's list (fixture check)"
