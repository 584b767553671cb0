#!/bin/bash
# Rescanning one archive: ld walks the symbol index in member order and
# makes another pass while the last one added undefined symbols, so a
# member late in the archive that references an early one pulls it on a
# later pass, and the extraction order is not the reference order.
. "$(dirname "$0")/lib.sh"

cat > m.c <<'EOF'
int late(void);
int main(void) { return late(); }
EOF
cat > early.c <<'EOF'
int early(void) { return 1; }
EOF
cat > mid.c <<'EOF'
int early(void);
int late2(void);
int mid(void) { return early() + late2(); }
EOF
cat > late.c <<'EOF'
int mid(void);
int late(void) { return mid(); }
EOF
cat > late2.c <<'EOF'
int late2(void) { return 2; }
int late2_other(void) { return 3; }
EOF
cat > unused.c <<'EOF'
int early(void);
int unused(void) { return early(); }
EOF
cc_objs -- m.c early.c mid.c late.c late2.c unused.c
make_archive libx.a early.o unused.o mid.o late.o late2.o

# pass 1: late.o (for late), pass 2: mid.o, then late2.o in the same pass,
# pass 3: early.o.
here=$(pwd)
printf '%s\n' "$here/libx.a(late.o)" "$here/libx.a(mid.o)" \
	"$here/libx.a(late2.o)" "$here/libx.a(early.o)" > want
ld -o sanity -Map=sanity.map -e main m.o libx.a || fail "sanity link failed"
ldmap_members sanity.map > sanity.members
expect_same want sanity.members "ld's own list (fixture check)"

oracle_ld plain -e main m.o libx.a
oracle_cc cc gcc -o prog m.o libx.a
# a relative spelling through another directory
mkdir sub
oracle_ld dotdot -e main m.o sub/../libx.a
