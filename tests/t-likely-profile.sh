#!/bin/bash
# Profile mode: from a plain --coverage build of samples/likely (no header),
# the preprocessor finds the hint sites, gcc's own view of the branches
# (its coverage pass, compiled again with the build's flags) and the .gcda's
# arc counts give the same counts as counting mode, site for site; the
# constant site (folded) is reported as unmatched with its reason.  A build
# at -O2 is read with --cflags -O2, and refused without it.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
need gcc
S=$TOP/samples/likely
cp "$S"/main.c "$S"/dso.c "$S"/hints.h .

mkdir obj count
gcc -O0 -fPIC --coverage -fprofile-update=atomic -c dso.c -o obj/dso.o &&
gcc -shared --coverage -o libhints.so obj/dso.o &&
gcc -O0 --coverage -fprofile-update=atomic -c main.c -o obj/main.o &&
gcc --coverage -o sample obj/main.o -L. -Wl,-rpath,"$PWD" -lhints -lpthread ||
	fail "cannot build the coverage sample"
./sample > /dev/null || fail "the coverage sample failed"
"$LC" profile --objdir obj --output prof.data main.c dso.c || fail "profile failed"
grep '^site' prof.data | cut -f1,3 | sort > sites
cat > want <<'EOF2'
site 0 0 0 1 78	rare
site 1 0 0 0 89	main
site 1000 9000 0 0 37	wrong
site 500 500 0 0 72	forked
site 5000 5000 0 1 44	useless
site 6667 3333 0 0 54	ranges
site 75000 25000 0 1 64	thread_main
site 9000 1000 0 0 53	ranges
site 9900 100 0 1 30	right
site 9990 10 0 0 9	dso_work
EOF2
expect_same want sites "profile mode's counts"
expect_grep $'^unmatched 1 91\tmain.c\tmain\t!!\\(sizeof\\(long\\) == 8\\)\tno code at this line' prof.data

# the same program built at -O2: read with the build's flags, refused
# without them (another compile's branches, where the counts would land on
# other sites), and --output keeps its file
mkdir obj2
gcc -O2 --coverage -fprofile-update=atomic -c main.c -o obj2/main.o &&
gcc --coverage -o sample2 obj2/main.o -L. -Wl,-rpath,"$PWD" -lhints -lpthread ||
	fail "cannot build the -O2 coverage sample"
./sample2 > /dev/null || fail "the -O2 coverage sample failed"
run_ok o2.out "$LC" profile --cflags "-O2 -fprofile-update=atomic" --objdir obj2 --output o2.data main.c
grep '^site' o2.data | cut -f1,3 | sort > o2.sites
grep -v dso_work want > o2.want
expect_same o2.want o2.sites "profile mode's counts of the -O2 build"
printf 'kept\n' > kept.data
expect_exit 1 mismatch.out "$LC" profile --objdir obj2 --output kept.data main.c
expect_grep '^likely-check: obj2/main.gcda: [a-z_]+: written for other code \(the graph checksum differs\) \(were the coverage build and likely-check given the same source, compiler and flags, from the same folder: --cc, --cflags\?\); its counts cannot be used for main.c$' \
	mismatch.out.err "profile of an -O2 build without its flags"
[[ $(cat kept.data) == kept ]] || fail "a refused profile replaced --output's file"

# counting mode on the same sources agrees on every matched site
gcc -O2 -fPIC -shared $("$LC" cflags) -o count/libhints.so dso.c &&
gcc -O2 $("$LC" cflags) -o count/sample main.c -Lcount -Wl,-rpath,"$PWD/count" -lhints -lpthread ||
	fail "cannot build the counting sample"
"$LC" run --dir count -- ./count/sample > /dev/null || fail "the counting sample failed"
"$LC" compare count/likely-check.* -- prof.data > compare || { cat compare >&2; fail "the modes differ"; }
expect_grep '^10 same, 0 differ, 1 unmatched, 0 on one side only$' compare

# an always_inline function copied into three callers: each copy's branch,
# summed; a hint that shares its line with another condition counted all
# the same; a hint on a || that gcc splits into one hint per operand is
# not matched, and says why
cat > inl.c <<'EOF2'
#define unlikely(x) __builtin_expect(!!(x), 0)
static volatile int sink;
static inline __attribute__((always_inline)) void step(int i)
{
	if (unlikely(i % 5 == 0))
		sink++;
}
void a(int n) { for (int i = 0; i < n; i++) step(i); }
void b(int n) { for (int i = 0; i < n; i++) step(i); }
void c(int n)
{
	for (int i = 0; i < n; i++)
		if (sink >= 0 && unlikely(i == 3))
			sink++;
	for (int i = 0; i < n; i++)
		if (unlikely(i == 3 || i == 4))
			sink++;
}
int main(void) { a(100); b(50); c(100); step(0); return 0; }
EOF2
gcc -O0 --coverage -c inl.c -o obj/inl.o && gcc --coverage -o inl obj/inl.o || fail "cannot build inl.c"
./inl || fail "inl failed"
"$LC" profile --objdir obj --output inl.data inl.c || fail "profile of inl.c failed"
expect_grep $'^site 120 31 0 0 5\tinl.c\tstep\t!!\\(i % 5 == 0\\)$' inl.data
expect_grep $'^site 99 1 0 0 13\tinl.c\tc\t!!\\(i == 3\\)$' inl.data
expect_grep $'^unmatched 0 16\tinl.c\tc\t!!\\(i == 3 \\|\\| i == 4\\)\tgcc hints each operand of its && or \\|\\| apart \\(2 branches\\)' inl.data
gcc -O0 $("$LC" cflags) -o inl-count inl.c || fail "cannot build the counting inl"
mkdir inl-counts
"$LC" run --dir inl-counts -- ./inl-count || fail "counting inl failed"
"$LC" compare inl-counts/likely-check.* -- inl.data > inl.compare || { cat inl.compare >&2; fail "the modes differ on inl.c"; }
expect_grep '^2 same, 0 differ, 1 unmatched, 0 on one side only$' inl.compare
