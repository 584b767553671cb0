#!/bin/bash
# --granularity=section: the input sections ld keeps under --gc-sections
# for the same link, for the objects written here: every allocated,
# non-empty input section of the loaded objects minus the ones
# ld --print-gc-sections removes.  Covers .init_array (a constructor),
# a __start_/__stop_ section, a C-identifier section nothing references,
# and a pulled archive member.
. "$(dirname "$0")/lib.sh"

cat > main.c <<'EOF'
int used_fn(void);
int walk(void);
int lib_fn(void);
int main(void) { return used_fn() + walk() + lib_fn(); }
EOF
cat > a.c <<'EOF'
struct ent { int v; };
int used_data = 1;
int unused_data = 2;
int counter;
const char used_ro[] = "kept";
const char unused_ro[] = "dropped";
__attribute__((constructor)) void init_me(void) { counter++; }
__attribute__((noinline)) int helper(void) { return used_ro[counter & 3]; }
int used_fn(void) { return used_data + counter + helper(); }
int unused_fn(void) { return unused_data + unused_ro[0]; }
__attribute__((section("mysec"))) struct ent e1 = { 1 };
__attribute__((section("othersec"))) struct ent o1 = { 2 };
extern struct ent __start_mysec[], __stop_mysec[];
int walk(void)
{
	int s = 0;
	for (struct ent *p = __start_mysec; p < __stop_mysec; p++)
		s += p->v;
	return s;
}
EOF
cat > b.c <<'EOF'
struct ent { int v; };
__attribute__((section("mysec"))) struct ent e2 = { 3 };
int lib_data = 4;
int lib_fn(void) { return lib_data; }
int lib_unused(void) { return 5; }
EOF
cat > c.c <<'EOF'
int not_pulled(void) { return 6; }
EOF
cc_objs -ffunction-sections -fdata-sections -- main.c a.c b.c c.c
make_archive libx.a c.o b.o
here=$(pwd)

# alloc_sections OBJ UNIT: "UNIT<TAB>SECTION" for each allocated section
# with a non-zero size
alloc_sections() {
	readelf -S -W "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		awk -v unit="$2" '$7 ~ /A/ && $5 !~ /^0+$/ { print unit "\t" $1 }'
}
all_sections() {
	readelf -S -W "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		awk -v unit="$2" 'NF > 1 { print unit "\t" $1 }'
}

check() { # NAME OBJ=UNIT…: compare NAME.dep with NAME.gc (ld's removals)
	local name=$1 pair
	shift
	: > "$name.universe.tmp"
	: > "$name.all.tmp"
	for pair; do
		alloc_sections "${pair%%=*}" "$here/${pair#*=}" >> "$name.universe.tmp"
		all_sections "${pair%%=*}" "$here/${pair#*=}" >> "$name.all.tmp"
	done
	sort -u "$name.universe.tmp" > "$name.universe"
	sort -u "$name.all.tmp" > "$name.all"
	# ld prints a group member as NAME[SIGNATURE]
	sed -n "s/^.*removing unused section '\(.*\)' in file '\(.*\)'\$/\2\t\1/p" "$name.gc" |
		sed 's/\[[^]]*\]$//' | "$TESTDIR/normalize-members" | sort -u > "$name.removed"
	comm -23 "$name.universe" "$name.removed" > "$name.expected"

	"$TESTDIR/normalize-members" "$name.dep" | sort -u > "$name.dep.norm"
	# every section deporder names in these units must exist in them
	for pair; do
		printf '%s\n' "$here/${pair#*=}"
	done > "$name.units"
	awk -F '\t' 'NR == FNR { want[$0] = 1; next } ($1 in want)' \
		"$name.units" "$name.dep.norm" > "$name.ours"
	comm -23 "$name.ours" "$name.all" > "$name.bogus"
	expect_empty "$name.bogus" "$name: sections deporder names that the objects do not have"
	comm -12 "$name.ours" "$name.universe" > "$name.actual"
	expect_same "$name.expected" "$name.actual" "$name: kept sections"
}

check_c_fixture() { # NAME: the C case removed and kept what it should
	local name=$1 s
	grep -q $'\tmysec$' "$name.universe" || fail "fixture: no mysec section"
	grep -q $'\t\\.init_array$' "$name.universe" || fail "fixture: no .init_array section"
	grep -q $'\t\\.text\\.unused_fn$' "$name.removed" || fail "fixture: ld kept .text.unused_fn"
	grep -q $'\tothersec$' "$name.removed" || fail "fixture: ld kept othersec"
	for s in .text.used_fn .init_array .text.init_me mysec .rodata.used_ro; do
		grep -q $'\t'"$s\$" "$name.expected" || fail "fixture: ld removed $s"
	done
	grep -q "libx.a(b.o)"$'\tmysec$' "$name.expected" || fail "fixture: ld removed mysec of b.o"
	if grep -qF "$here/libx.a(c.o)" "$name.dep.norm"; then
		fail "$name: deporder lists libx.a(c.o), never pulled"
	fi
	return 0
}

ld -o plain.out --gc-sections --print-gc-sections -e main main.o a.o libx.a 2> plain.gc ||
	fail "reference link with ld failed: $(cat plain.gc)"
deporder_ok plain.dep plain.dep.err --granularity=section -e main main.o a.o libx.a
check plain main.o=main.o a.o=a.o b.o='libx.a(b.o)'
check_c_fixture plain

gcc -o prog main.o a.o libx.a -Wl,--gc-sections -Wl,--print-gc-sections 2> cc.gc ||
	fail "reference link with gcc failed: $(cat cc.gc)"
[[ $(./prog; echo $?) == 111 ]] || fail "fixture: the program returned $(./prog; echo $?)"
deporder_ok cc.dep cc.dep.err --granularity=section --cc -- gcc -o prog main.o a.o libx.a -Wl,--gc-sections
check cc main.o=main.o a.o=a.o b.o='libx.a(b.o)'
check_c_fixture cc

# C++: one inline function in two objects; ld keeps the first COMDAT copy
# and drops the second with its group
if command -v g++ > /dev/null; then
	cat > i.h <<'EOF'
inline __attribute__((noinline)) int inl(int x) { return x * 3; }
EOF
	cat > ca.cc <<'EOF'
#include "i.h"
int a() { return inl(1); }
EOF
	cat > cb.cc <<'EOF'
#include "i.h"
int b() { return inl(2); }
int b_unused() { return 0; }
EOF
	cat > cm.cc <<'EOF'
int a();
int b();
int main() { return a() + b(); }
EOF
	cc_objs -ffunction-sections -fdata-sections -fno-exceptions -- ca.cc cb.cc cm.cc
	g++ -o cxx cm.o ca.o cb.o -Wl,--gc-sections -Wl,--print-gc-sections 2> cxx.gc ||
		fail "reference C++ link failed: $(cat cxx.gc)"
	deporder_ok cxx.dep cxx.dep.err --granularity=section --cc -- g++ -o cxx cm.o ca.o cb.o -Wl,--gc-sections
	check cxx cm.o=cm.o ca.o=ca.o cb.o=cb.o
	grep -q "/ca.o"$'\t''\.text\._Z3inli$' cxx.expected || fail "fixture: ld dropped the first inl copy"
	if grep -q "/cb.o"$'\t''\.text\._Z3inli$' cxx.expected; then
		fail "fixture: ld kept the second inl copy"
	fi
fi
