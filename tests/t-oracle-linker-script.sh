#!/bin/bash
# Archives named by a linker script given as an input: INPUT(...) and
# GROUP(...), with files found in the current directory or through -L,
# and -lNAME inside the script.
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
int a2(void) { return 2; }
EOF
cat > b.c <<'EOF'
int a2(void);
int b(void) { return a2(); }
EOF
cc_objs -- m.c a.c a2.c b.c
mkdir lib
make_archive lib/liba.a a.o a2.o
make_archive lib/libb.a b.o
here=$(pwd)
want_group() {
	printf '%s\n' "$here/lib/liba.a(a.o)" "$here/lib/libb.a(b.o)" "$here/lib/liba.a(a2.o)"
}

# GROUP in a script found by -l (like libc.so)
printf '/* a script */\nGROUP ( liba.a libb.a )\n' > lib/libab.a
oracle_ld group_l -e main m.o -Llib -lab
want_group > want
expect_same want group_l.expected "ld's list (fixture check)"
oracle_cc group_lcc gcc -o prog m.o -Llib -lab

# GROUP given by path, with -lNAME inside
printf 'GROUP ( -la -lb )\n' > group.ld
oracle_ld group_path -e main m.o -Llib group.ld
expect_same want group_path.expected "ld's list (fixture check)"

# INPUT: no rescanning, so a2 stays undefined
printf 'INPUT ( lib/liba.a lib/libb.a )\n' > input.ld
ORACLE_LINK_MAY_FAIL=1
oracle_ld input --ld-only --noinhibit-exec -- -e main m.o input.ld
printf '%s\n' "$here/lib/liba.a(a.o)" "$here/lib/libb.a(b.o)" > want
expect_same want input.expected "ld's list (fixture check)"
expect_grep "undefined reference to 'a2'" input.dep.err "deporder's warnings"
