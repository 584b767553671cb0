#!/bin/bash
# Common symbols (-fcommon): a tentative definition is satisfied by an
# archive member holding a real definition, never by a member that holds
# only another common declaration; an undefined reference is satisfied by
# a common one first, which a later real definition then replaces.
. "$(dirname "$0")/lib.sh"

cat > mcommon.c <<'EOF'
int x;
int main(void) { return x; }
EOF
cat > mextern.c <<'EOF'
extern int x;
int main(void) { return x; }
EOF
cat > c.c <<'EOF'
int x;
int c_only(void) { return 5; }
EOF
cat > d.c <<'EOF'
int x = 5;
int d_only(void) { return 6; }
EOF
cc_objs -fcommon -- mcommon.c mextern.c c.c d.c
nm c.o | grep -q ' C x$' || skip "the compiler made no common symbol with -fcommon"
make_archive libcd.a c.o d.o
make_archive libc_only.a c.o
make_archive libdc.a d.o c.o
here=$(pwd)

oracle_ld common_def -e main mcommon.o libcd.a
printf '%s\n' "$here/libcd.a(d.o)" > want
expect_same want common_def.expected "ld's list (fixture check)"
oracle_cc common_defcc gcc -fcommon -o prog mcommon.o libcd.a

oracle_ld common_none -e main mcommon.o libc_only.a
expect_empty common_none.expected "ld's list (fixture check)"

oracle_ld extern_cd -e main mextern.o libcd.a
oracle_ld extern_dc -e main mextern.o libdc.a
oracle_ld extern_c -e main mextern.o libc_only.a
printf '%s\n' "$here/libc_only.a(c.o)" > want
expect_same want extern_c.expected "ld's list (fixture check)"
oracle_cc extern_cdcc gcc -o prog2 mextern.o libcd.a
