#!/bin/bash
# STB_GNU_UNIQUE symbols (g++ "u": template static data members, statics
# of inline functions) are definitions: an undefined reference pulls the
# member that has one, and a unique symbol already defined pulls nothing.
. "$(dirname "$0")/lib.sh"
need g++

cat > u.h <<'EOF'
template <class T> struct Reg { static int count; };
template <class T> int Reg<T>::count = 7;
inline __attribute__((noinline)) int &counter() { static int c = 3; return c; }
EOF
cat > m.cc <<'EOF'
#include "u.h"
extern template struct Reg<int>;
int main() { return Reg<int>::count + counter(); }
EOF
cat > u0.cc <<'EOF'
#include "u.h"
int unused0() { return counter(); }
EOF
cat > u1.cc <<'EOF'
#include "u.h"
template struct Reg<int>;
int u1_only() { return 1; }
EOF
cc_objs -fno-exceptions -- m.cc u0.cc u1.cc
nm u1.o | grep -q ' u _ZN3RegIiE5countE$' || skip "g++ made no STB_GNU_UNIQUE symbol"
nm m.o | grep -q ' U _ZN3RegIiE5countE$' || fail "fixture: m.o should reference Reg<int>::count undefined"
nm m.o | grep -q ' u _ZZ7countervE1c$' || fail "fixture: m.o should define counter()::c as unique"
make_archive libu.a u0.o u1.o
here=$(pwd)

oracle_ld plain -e main m.o libu.a
printf '%s\n' "$here/libu.a(u1.o)" > want
expect_same want plain.expected "ld's list (fixture check)"
oracle_cc cc g++ -o prog m.o libu.a
