#!/bin/bash
# Thin archives (ar rcT): the members are the files the archive names,
# relative to the archive's directory.  ld's map prints a thin member as
# its own path; deporder prints ARCHIVE(MEMBER) with MEMBER the name the
# archive stores (relative to the archive's directory), so that
# dirname(ARCHIVE)/MEMBER is the file ld read.
. "$(dirname "$0")/lib.sh"

mkdir -p lib/objs
cat > m.c <<'EOF'
int t2(void);
int main(void) { return t2(); }
EOF
cat > lib/objs/t1.c <<'EOF'
int t1(void) { return 1; }
EOF
cat > lib/objs/t2.c <<'EOF'
int t1(void);
int t2(void) { return t1(); }
EOF
cat > lib/objs/t3.c <<'EOF'
int t3(void) { return 3; }
EOF
cc_objs -- m.c lib/objs/t1.c lib/objs/t2.c lib/objs/t3.c
make_thin_archive lib/libt.a lib/objs/t1.o lib/objs/t2.o lib/objs/t3.o
[[ $(head -c 8 lib/libt.a) == '!<thin>' ]] || fail "fixture: lib/libt.a is not thin"
here=$(pwd)

check_thin() { # NAME: deporder names each thin member by its own path, as ld's map does
	local name=$1 line
	: > "$name.paths"
	while IFS= read -r line; do
		[[ $line != *'('* ]] || fail "$name: '$line' names a thin member as ARCHIVE(MEMBER); ld's map names it by its path"
		[[ $line == lib/objs/t[123].o ]] ||
			fail "$name: '$line' is not the member's path relative to the archive's folder (lib/objs/tN.o)"
		realpath -m "$line" >> "$name.paths"
	done < "$name.dep"
	"$TESTDIR/ldmap-members" "$name.map" | "$TESTDIR/normalize-members" > "$name.ldpaths"
	expect_same "$name.ldpaths" "$name.paths" "$name: members of the thin archive"
	# The list is ld's own spelling, not only the same files.
	"$TESTDIR/ldmap-members" "$name.map" > "$name.ldraw"
	expect_same "$name.ldraw" "$name.dep" "$name: ld's spelling of the thin members"
}

printf '%s\n' "$here/lib/objs/t2.o" "$here/lib/objs/t1.o" > want
ld -o plain.out -Map=plain.map -e main m.o lib/libt.a || fail "reference link failed"
"$TESTDIR/ldmap-members" plain.map | "$TESTDIR/normalize-members" > plain.ld
expect_same want plain.ld "ld's list (fixture check)"
deporder_ok plain.dep plain.err --format=members -e main m.o lib/libt.a
check_thin plain

gcc -o prog m.o -Llib -lt -Wl,-Map=cc.map || fail "reference link through gcc failed"
deporder_ok cc.dep cc.err --format=members --cc -- gcc -o prog m.o -Llib -lt
check_thin cc
