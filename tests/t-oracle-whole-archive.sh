#!/bin/bash
# --whole-archive loads every member of the archive in archive order
# (listed by --format=members); --no-whole-archive and --pop-state end it.
. "$(dirname "$0")/lib.sh"

cat > m.c <<'EOF'
int main(void) { return 0; }
EOF
cat > w1.c <<'EOF'
int x1(void);
int w1(void) { return x1(); }
EOF
cat > w2.c <<'EOF'
int w2(void) { return 2; }
EOF
cat > x1.c <<'EOF'
int x1(void) { return 1; }
EOF
cat > x2.c <<'EOF'
int x2(void) { return 2; }
EOF
cc_objs -- m.c w1.c w2.c x1.c x2.c
make_archive libw.a w2.o w1.o
make_archive libx.a x2.o x1.o
here=$(pwd)
printf '%s\n' "$here/libw.a(w2.o)" "$here/libw.a(w1.o)" "$here/libx.a(x1.o)" > want

oracle_ld whole -e main m.o --whole-archive libw.a --no-whole-archive libx.a
expect_same want whole.expected "ld's list (fixture check)"
oracle_ld state -e main m.o --push-state --whole-archive libw.a --pop-state libx.a
expect_same want state.expected "ld's list (fixture check)"
oracle_ld lflag -e main m.o -L. --whole-archive -lw --no-whole-archive -lx
oracle_cc cc gcc -o prog m.o -Wl,--whole-archive libw.a -Wl,--no-whole-archive libx.a
# without it, nothing is wanted
oracle_ld none -e main m.o libw.a libx.a
expect_empty none.expected "ld's list (fixture check)"
