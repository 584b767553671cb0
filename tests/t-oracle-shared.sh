#!/bin/bash
# A definition in a shared library given before the archive satisfies the
# reference, so the archive member is not pulled; after the archive it
# comes too late.  With --as-needed, a library that nothing references yet
# at its place is dropped with its symbols, so the member is pulled.
. "$(dirname "$0")/lib.sh"

cat > f.c <<'EOF'
int f(void) { return 1; }
EOF
cat > m.c <<'EOF'
int f(void);
int main(void) { return f(); }
EOF
cc_obj f.o f.c
cc_obj m.o m.c
gcc -shared -fPIC -o libs.so f.c || fail "cannot build libs.so"
mkdir lib
make_archive lib/libf.a f.o
cp libs.so lib/libs.so
here=$(pwd)

oracle_ld so_first -e main m.o libs.so lib/libf.a
expect_empty so_first.expected "ld's list (fixture check)"
oracle_ld so_after -e main m.o lib/libf.a libs.so
printf '%s\n' "$here/lib/libf.a(f.o)" > want
expect_same want so_after.expected "ld's list (fixture check)"
oracle_ld so_before_obj -e main libs.so m.o lib/libf.a
expect_empty so_before_obj.expected "ld's list (fixture check)"

# -lNAME finds lib/libs.so before lib/libs.a; -Bstatic only the archive
cp lib/libf.a lib/libs.a
oracle_ld l_dynamic -e main m.o -Llib -ls -lf
expect_empty l_dynamic.expected "ld's list (fixture check)"
oracle_ld l_static -e main m.o -Llib -Bstatic -ls -Bdynamic -lf
printf '%s\n' "$here/lib/libs.a(f.o)" > want
expect_same want l_static.expected "ld's list (fixture check)"

oracle_ld l_static2 -e main m.o -Llib -static -ls
expect_same want l_static2.expected "ld's list with -static (fixture check)"

# --as-needed
oracle_ld asneeded_unused -e main --as-needed libs.so --no-as-needed m.o lib/libf.a
printf '%s\n' "$here/lib/libf.a(f.o)" > want
expect_same want asneeded_unused.expected "ld's list (fixture check)"
oracle_ld asneeded_used -e main m.o --as-needed libs.so --no-as-needed lib/libf.a
expect_empty asneeded_used.expected "ld's list (fixture check)"
oracle_ld asneeded_state -e main --push-state --as-needed libs.so --pop-state m.o lib/libf.a
printf '%s\n' "$here/lib/libf.a(f.o)" > want
expect_same want asneeded_state.expected "ld's list (fixture check)"

oracle_cc cc_first gcc -o prog m.o libs.so lib/libf.a
oracle_cc cc_asneeded gcc -o prog2 -Wl,--as-needed libs.so -Wl,--no-as-needed m.o lib/libf.a
