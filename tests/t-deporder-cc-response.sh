#!/bin/bash
# deporder --cc on a link that takes its objects from a response file
# (@FILE), as CMake's Ninja generator and meson write long links: gcc -###
# then names a temporary response file of its own for collect2, removed
# before deporder could read it; deporder expands the @FILEs of the
# compiler command itself, nested ones and quoted names too.
. "$(dirname "$0")/lib.sh"
need gcc

cat > a.c <<'EOF2'
int b(void);
int main(void) { return b(); }
EOF2
cat > 'b c.c' <<'EOF2'
int c(void);
int b(void) { return c(); }
EOF2
cat > c.c <<'EOF2'
int c(void) { return 0; }
EOF2
cc_obj a.o a.c
cc_obj 'b c.o' 'b c.c'
cc_obj c.o c.c
make_archive libc1.a c.o
printf '"b c.o" @inner.rsp\n' > outer.rsp
printf -- '-L. -lc1\n' > inner.rsp
deporder_ok want.out want.err --cc -- gcc -o prog a.o 'b c.o' -L. -lc1
deporder_ok got.out got.err --cc -- gcc -o prog a.o @outer.rsp
expect_same want.out got.out "deporder --cc with the objects in a response file"
grep -q 'c1.a(c.o)' got.out || fail "the archive member named in the nested response file is missing: $(cat got.out)"

printf 'a.o @loop.rsp\n' > loop.rsp
run_deporder out err --cc -- gcc -o prog @loop.rsp
expect_status 1 "a response file that includes itself"
expect_grep 'nested too deeply' err
