#!/bin/bash
# A weak definition pulled from an earlier member (or an earlier archive)
# satisfies the symbol: ld does not pull a later member for its strong
# definition.
. "$(dirname "$0")/lib.sh"

cat > m.c <<'EOF'
int f(void);
int g(void);
int main(void) { return f() + g(); }
EOF
cat > w.c <<'EOF'
__attribute__((weak)) int f(void) { return 1; }
int g(void) { return 2; }
EOF
cat > s.c <<'EOF'
int f(void) { return 10; }
int h(void) { return 11; }
EOF
cc_objs -- m.c w.c s.c
make_archive libx.a w.o s.o
make_archive libw.a w.o
make_archive libs.a s.o
here=$(pwd)

oracle_ld one -e main m.o libx.a
printf '%s\n' "$here/libx.a(w.o)" > want
expect_same want one.expected "ld's list (fixture check)"
oracle_ld two -e main m.o libw.a libs.a
oracle_cc cc gcc -o prog m.o libw.a libs.a
# the strong definition first: s.o for f, then w.o for g
oracle_ld rev -e main m.o libs.a libw.a
printf '%s\n' "$here/libs.a(s.o)" "$here/libw.a(w.o)" > want
expect_same want rev.expected "ld's list (fixture check)"
