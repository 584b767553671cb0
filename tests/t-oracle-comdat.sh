#!/bin/bash
# COMDAT groups: C++ inline functions and template instances defined (weak,
# in a group) in several members.  A COMDAT definition satisfies an
# undefined reference like any other definition, whichever member comes
# first in the symbol index.
. "$(dirname "$0")/lib.sh"
need g++

cat > t.h <<'EOF'
template <class T> __attribute__((noinline)) T tf(T x) { return x + 1; }
inline __attribute__((noinline)) int inl(int x) { return x * 3; }
EOF
cat > m.cc <<'EOF'
#include "t.h"
extern template int tf<int>(int);
int a();
int b();
int main() { return tf<int>(1) + a() + b(); }
EOF
cat > a.cc <<'EOF'
#include "t.h"
int a() { return tf<int>(2) + inl(1); }
EOF
cat > b.cc <<'EOF'
#include "t.h"
int b() { return tf<int>(3) + inl(2); }
EOF
cat > inst.cc <<'EOF'
#include "t.h"
template int tf<int>(int);
int inst_only() { return 9; }
EOF
cat > mt.cc <<'EOF'
#include "t.h"
extern template int tf<int>(int);
int main() { return tf<int>(1); }
EOF
cc_objs -fno-exceptions -- m.cc a.cc b.cc inst.cc mt.cc
readelf -g a.o | grep -q COMDAT || skip "g++ put no COMDAT group in a.o"
nm m.o | grep -q ' U _Z2tfIiET_S0_$' || fail "fixture: m.o should reference tf<int> undefined"
make_archive libabi.a a.o inst.o b.o
make_archive libiab.a inst.o a.o b.o
make_archive libinst.a inst.o
here=$(pwd)

oracle_ld abi -e main m.o libabi.a
printf '%s\n' "$here/libabi.a(a.o)" "$here/libabi.a(b.o)" > want
expect_same want abi.expected "ld's list (fixture check)"
oracle_ld iab -e main m.o libiab.a
printf '%s\n' "$here/libiab.a(inst.o)" "$here/libiab.a(a.o)" "$here/libiab.a(b.o)" > want
expect_same want iab.expected "ld's list (fixture check)"
oracle_ld inst -e main mt.o libinst.a
oracle_cc abicc g++ -o prog m.o libabi.a
oracle_cc iabcc g++ -o prog2 m.o libiab.a
