#!/bin/bash
# --keep-going: a bad input is reported and skipped, the rest is still
# computed and printed, and the exit status is 1.  Without it, deporder
# stops with status 1.
. "$(dirname "$0")/lib.sh"

cat > m.c <<'EOF'
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
cc_objs -- m.c a.c b.c
make_archive libab.a b.o a.o
printf 'not an object\n' > bad.txt
head -c 40 m.o > bad.o

ld -o ref -Map=ref.map -e main m.o libab.a || fail "fixture: reference link failed"
ldmap_members ref.map > want
expect_lines want 2 "ld's list (fixture check)"

deporder_ok good.out good.err --format=members -e main m.o libab.a
normalize good.out > good.members
expect_same want good.members "members without the bad inputs"

for bad in nosuch.o bad.o bad.txt; do
	DEP_ERR=kg.$bad.err
	run_deporder kg.$bad.out kg.$bad.err --keep-going --format=members -e main m.o "$bad" libab.a
	expect_status 1 "deporder --keep-going with $bad"
	expect_grep "^deporder: [^ ]*$bad: " kg.$bad.err "error for $bad"
	normalize kg.$bad.out > kg.$bad.members
	expect_same want kg.$bad.members "members with --keep-going and $bad"

	DEP_ERR=stop.$bad.err
	run_deporder stop.$bad.out stop.$bad.err --format=members -e main m.o "$bad" libab.a
	expect_status 1 "deporder with $bad"
	expect_grep "^deporder: [^ ]*$bad: " stop.$bad.err "error for $bad"
done

# two bad inputs: both reported
DEP_ERR=two.err
run_deporder two.out two.err --keep-going --format=members -e main nosuch.o m.o bad.o libab.a
expect_status 1 "deporder --keep-going with two bad inputs"
expect_grep "nosuch\.o" two.err "error for nosuch.o"
expect_grep "bad\.o" two.err "error for bad.o"
normalize two.out > two.members
expect_same want two.members "members with --keep-going and two bad inputs"

# --keep-going --out: the file is not replaced by the incomplete result.
printf 'the old order\n' > kept.txt
cp kept.txt kept.want
DEP_ERR=out.err
run_deporder out.out out.err --keep-going --out kept.txt --format=members -e main m.o bad.o libab.a
expect_status 1 "deporder --keep-going --out with a bad input"
expect_same kept.want kept.txt "the --out file after an incomplete run"
expect_grep "kept\.txt: not replaced: an input failed" out.err "the refusal to replace"
