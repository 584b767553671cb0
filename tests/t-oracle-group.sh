#!/bin/bash
# --start-group/--end-group (and -( -)) rescans the archives of the group
# until nothing new is pulled; an archive after the group is not part of it.
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
int c(void);
int a2(void) { return c(); }
EOF
cat > b.c <<'EOF'
int a2(void);
int b(void) { return a2(); }
EOF
cat > c.c <<'EOF'
int c(void) { return 3; }
EOF
cat > spare.c <<'EOF'
int spare(void) { return 4; }
EOF
cc_objs -- m.c a.c a2.c b.c c.c spare.c
make_archive liba.a a.o a2.o spare.o
make_archive libb.a b.o
make_archive libc_.a c.o

here=$(pwd)
printf '%s\n' "$here/liba.a(a.o)" "$here/libb.a(b.o)" "$here/liba.a(a2.o)" \
	"$here/libc_.a(c.o)" > want

oracle_ld long -e main m.o --start-group liba.a libb.a --end-group libc_.a
expect_same want long.expected "ld's own list (fixture check)"
oracle_ld short -e main m.o '-(' liba.a libb.a '-)' libc_.a
oracle_ld lflag -e main m.o -L. --start-group -la -lb --end-group -lc_
oracle_cc cc gcc -o prog m.o -Wl,--start-group liba.a libb.a -Wl,--end-group libc_.a
expect_empty long.dep.err "deporder's stderr"
