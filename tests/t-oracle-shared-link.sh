#!/bin/bash
# -shared: a shared library link pulls archive members like any other
# link, has no entry symbol, and leaves undefined symbols to run time
# (ld reports none, so deporder must not warn).
. "$(dirname "$0")/lib.sh"

cat > api.c <<'EOF'
int helper(void);
int from_host(void);
int api(void) { return helper() + from_host(); }
EOF
cat > helper.c <<'EOF'
int helper2(void);
int helper(void) { return helper2(); }
EOF
cat > helper2.c <<'EOF'
int helper2(void) { return 2; }
EOF
cat > start.c <<'EOF'
int _start(void) { return 0; }
EOF
cc_objs -fPIC -- api.c helper.c helper2.c start.c
make_archive libh.a helper2.o start.o helper.o
here=$(pwd)

oracle_ld plain -shared api.o libh.a
printf '%s\n' "$here/libh.a(helper.o)" "$here/libh.a(helper2.o)" > want
expect_same want plain.expected "ld's list (fixture check)"
expect_no_grep 'undefined reference' plain.dep.err "deporder's warnings for -shared"
oracle_cc cc gcc -shared -o libapi.so api.o libh.a
expect_no_grep 'undefined reference' cc.dep.err "deporder's warnings for gcc -shared"
