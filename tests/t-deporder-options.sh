#!/bin/bash
# deporder's own options: --help, --seed (shortest form), --format=list
# and json, --why, and unknown or unmodelled ld options skipped with one
# warning each.
. "$(dirname "$0")/lib.sh"

cat > main.c <<'EOF'
int a(void);
int main(void) { return a(); }
EOF
cat > a.c <<'EOF'
int b(void);
int a(void) { return b(); }
EOF
cat > b.c <<'EOF'
int b(void) { return 2; }
EOF
cat > spare.c <<'EOF'
int spare(void) { return 3; }
EOF
cc_objs -- main.c a.c b.c spare.c
make_archive libfoo.a spare.o b.o a.o main.o
here=$(pwd)

# --help
deporder_ok help.out help.err --help
expect_grep '[Uu]sage' help.out "--help output"
expect_grep '[-]-format' help.out "--help output"
expect_grep '[-]-seed' help.out "--help output"

# --seed main libfoo.a, the shortest form: default format is list
deporder_ok seed.out seed.err --seed main libfoo.a
sed 's/[[:space:]]*$//' seed.out | grep -v '^$' | "$TESTDIR/normalize-members" | sort > seed.units
printf '%s\n' "$here/libfoo.a(main.o)" "$here/libfoo.a(a.o)" "$here/libfoo.a(b.o)" | sort > want
expect_same want seed.units "units of --seed main libfoo.a"
# dependency order: callers before callees, depth first from the seed
printf '%s\n' "$here/libfoo.a(main.o)" "$here/libfoo.a(a.o)" "$here/libfoo.a(b.o)" > want
sed 's/[[:space:]]*$//' seed.out | grep -v '^$' | "$TESTDIR/normalize-members" > seed.order
expect_same want seed.order "order of --seed main libfoo.a"

# same as ld -u main, in ld's order
ld -o ref -Map=ref.map -u main -e main libfoo.a || fail "fixture: reference link failed"
ldmap_members ref.map > ref.members
expect_lines ref.members 3 "ld's list (fixture check)"
deporder_ok seedm.out seedm.err --format=members --seed main libfoo.a
normalize seedm.out > seedm.members
expect_same ref.members seedm.members "--format=members --seed main libfoo.a"

# --format=list with an object file: the object and the members
deporder_ok list.out list.err --format=list -e main main.o libfoo.a
"$TESTDIR/normalize-members" list.out | sort > list.units
printf '%s\n' "$here/main.o" "$here/libfoo.a(a.o)" "$here/libfoo.a(b.o)" | sort > want
expect_same want list.units "units of --format=list main.o libfoo.a"
# each unit once
[[ $(sort list.out | uniq -d | wc -l) == 0 ]] || fail "--format=list printed a unit twice"

# --format=json parses and names every unit
if command -v python3 > /dev/null; then
	deporder_ok json.out json.err --format=json -e main main.o libfoo.a
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' json.out ||
		fail "--format=json output is not JSON: $(head -c 300 json.out)"
	for unit in main.o 'libfoo.a(a.o)' 'libfoo.a(b.o)'; do
		grep -qF "$unit" json.out || fail "--format=json does not name $unit"
	done
	if grep -qF 'spare.o' json.out; then
		fail "--format=json names spare.o, which is not needed"
	fi
fi

# --seed works like -u
deporder_ok seedu.out seedu.err --format=members --seed spare -e main main.o libfoo.a
normalize seedu.out > seedu.members
ld -o ref2 -Map=ref2.map -u spare -e main main.o libfoo.a || fail "fixture: reference link failed"
ldmap_members ref2.map > ref2.members
expect_same ref2.members seedu.members "--seed spare main.o libfoo.a"

# --why SYM: a chain of references back to the seed
for what in b 'libfoo.a(b.o)'; do
	deporder_ok why.out why.err --seed main --why "$what" libfoo.a
	[[ -s why.out ]] || fail "--why $what printed nothing"
	grep -q 'b' why.out || fail "--why $what does not mention b: $(cat why.out)"
	grep -qF 'a.o' why.out || grep -qw 'a' why.out ||
		fail "--why $what skips the link through a: $(cat why.out)"
	last=$(grep -v '^[[:space:]]*$' why.out | tail -n 1)
	[[ $last == *main* ]] || fail "--why $what does not end at the seed main: $(cat why.out)"
	first=$(grep -v '^[[:space:]]*$' why.out | head -n 1)
	[[ $first == *b* ]] || fail "--why $what does not start at b: $(cat why.out)"
done

# ld options deporder does not model, and unknown ones: skipped with one
# warning per distinct option; the warning names the option as given (-z
# muldefs, a -z keyword, is an option of its own).  The options that only
# shape the output (--build-id, -O1, -z relro, -z now, --hash-style) pass
# without a word.
ld -o ref3 -Map=ref3.map -e main main.o libfoo.a || fail "fixture: reference link failed"
ldmap_members ref3.map > ref3.members
deporder_ok unk.out unk.err --format=members --build-id -e main -O1 main.o --build-id -Kfrobnicate \
	-z relro --hash-style=gnu --copy-dt-needed-entries -O1 libfoo.a -z relro -z now -z muldefs -Kfrobnicate
normalize unk.out > unk.members
expect_same ref3.members unk.members "members with unknown ld options"
for opt in 'Kfrobnicate' 'copy-dt-needed-entries' '-z muldefs'; do
	n=$(grep -c -- "'-*$opt'" unk.err)
	(( n == 1 )) || { cat unk.err >&2; fail "expected one warning naming $opt, got $n"; }
done
expect_lines unk.err 3 "warnings for 3 distinct unmodelled options"
expect_no_grep '^deporder: [^w]' unk.err "stderr (only warnings expected)"
expect_grep '^deporder: warning: ' unk.err "warnings"
