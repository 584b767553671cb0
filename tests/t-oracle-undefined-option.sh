#!/bin/bash
# -u SYM (anywhere on the command line) and -e SYM make SYM undefined
# before any input is loaded, so they pull the member that defines it.
. "$(dirname "$0")/lib.sh"

cat > m.c <<'EOF'
int main(void) { return 0; }
EOF
cat > u1.c <<'EOF'
int u2(void);
int u1(void) { return u2(); }
EOF
cat > u2.c <<'EOF'
int u2(void) { return 2; }
EOF
cat > late.c <<'EOF'
int late(void) { return 3; }
EOF
cat > ent.c <<'EOF'
int ent(void) { return 4; }
EOF
cc_objs -- m.c u1.c u2.c late.c ent.c
make_archive libu.a u2.o late.o u1.o ent.o
here=$(pwd)

oracle_ld u -e main -u u1 m.o libu.a
printf '%s\n' "$here/libu.a(u1.o)" "$here/libu.a(u2.o)" > want
expect_same want u.expected "ld's list (fixture check)"
oracle_ld u_after -e main m.o libu.a -u late
printf '%s\n' "$here/libu.a(late.o)" > want
expect_same want u_after.expected "ld's list (fixture check)"
oracle_ld u_joined -e main -ulate --undefined=u1 m.o libu.a
oracle_ld entry -e ent m.o libu.a
printf '%s\n' "$here/libu.a(ent.o)" > want
expect_same want entry.expected "ld's list (fixture check)"
oracle_cc cc gcc -o prog -Wl,-u,u1 m.o libu.a
