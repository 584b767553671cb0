#!/bin/bash
# likely-check's two modes agree site by site on the hint patterns that
# profile mode got wrong: a hint on the left of || as a statement (profile
# said 0 right, 6000 wrong), a negated hint and a hint on a value that is
# not 0 or 1 (inverted), two hints joined by && on one line and a hint
# beside another condition (not matched), a hint spread over lines, a
# post-decrement leaving a loop, a macro over several lines, and NULL from
# a system header (its line markers were left in the expression).  gcc's
# own view of the branches (which successor is the true one, which block
# tests which hint) decides; a hint used as a value, or tested against 0
# when its value may be neither 0 nor 1, is not matched, and says why.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
need gcc

cat > pat.c <<'EOF2'
/* The hint patterns profile mode used to get wrong, each with its counts
   in a run of ./pat (no argument). */
#include <stddef.h>
#include <stdio.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define LIKELY(x) __builtin_expect((x), 1)
#define CHECK(cond, what) \
	do { \
		if (unlikely(!(cond))) \
			errors += report(what); \
	} while (0)

static int errors;
static volatile int sink;

static int report(const char *what)
{
	sink += what[0];
	return 1;
}

static int err(void)
{
	sink++;
	return 0;
}

/* post-decrement, the branch leaving the loop: 1 wrong in 6 */
static int drain(int x)
{
	int n = 0;

	for (;;) {
		if (unlikely(x-- == 0)) break;
		n++;
	}
	return n;
}

/* a hint on the left of ||, as a statement */
static void either(int c)
{
	(void)(likely(c) || err());
}

/* two hints joined by && on one line, and a hint and a plain condition */
static void both(int a, int b)
{
	if (likely(a > 0) && likely(b > 3))
		sink++;
	if (b > 1 && unlikely(a % 7 == 0))
		sink++;
}

/* a hint spread over lines, its condition on the next one */
static void spread(int a)
{
	if (likely(a
		   > 2)
	    && a != 4)
		sink++;
}

/* NULL from a system header puts line markers inside the expression */
static void pointer(const char *p)
{
	if (unlikely(p == NULL))
		err();
}

/* negated, kept in a variable, a conditional, a value not 0 or 1 */
static int shapes(int a, long v)
{
	int kept = likely(a & 1);

	if (!likely(a % 3))
		sink++;
	if (kept)
		sink++;
	sink += LIKELY(a > 1) ? 1 : 2;
	if (LIKELY(v))
		sink++;
	return likely(a != 5);
}

int main(int argc, char **argv)
{
	int i;

	(void)argv;
	for (i = 0; i < 1000; i++)
		sink += drain(5);
	for (i = 0; i < 6000; i++)
		either(argc);
	for (i = 0; i < 124; i++)
		both(i % 50, i % 7);
	for (i = 0; i < 10; i++)
		spread(i);
	for (i = 0; i < 100; i++) {
		CHECK(i < 90,
		      "over");
		pointer(i % 10 ? argv[0] : NULL);
		sink += shapes(i, i % 4);
	}
	printf("%d %d\n", errors, sink > 0);
	return 0;
}
EOF2
mkdir obj counts
gcc -O0 --coverage -c pat.c -o obj/pat.o && gcc --coverage -o pat-coverage obj/pat.o ||
	fail "cannot build the coverage program"
gcc -O2 -Wall -Werror $("$LC" cflags) -o pat-counting pat.c || fail "cannot build the counting program"
echo '10 1' > want.out
expect_output want.out coverage.out "the coverage program" ./pat-coverage
expect_output want.out counting.out "the counting program" "$LC" run --dir counts -- ./pat-counting
run_ok profile.out "$LC" profile --objdir obj --output prof.data pat.c
expect_empty profile.out.err "profile: stderr"
expect_no_grep '#' prof.data "the expressions of profile mode"

run_ok compare.out "$LC" compare counts/likely-check.* -- prof.data
# left correct, incorrect, right correct, incorrect, verdict, function, line
awk 'NR > 2 && /^ / && NF > 6 { sub(/^pat\.c:/, "", $7); print $1, $2, $3, $4, $5, $6, $7 }' compare.out > got
cat > want <<'EOF2'
5000 1000 5000 1000 same drain 36
6000 0 6000 0 same either 45
121 3 121 3 same both 51
52 69 52 69 same both 51
84 4 84 4 same both 53
7 3 7 3 same spread 60
90 10 90 10 same pointer 69
50 50 ? ? unmatched shapes 76
66 34 66 34 same shapes 78
98 2 98 2 same shapes 82
25 75 ? ? unmatched shapes 83
99 1 ? ? unmatched shapes 85
90 10 90 10 same main 102
EOF2
expect_same want got "counting mode against profile mode"
expect_grep '^10 same, 0 differ, 3 unmatched, 0 on one side only$' compare.out
expect_grep $'^site 90 10 0 0 69\tpat.c\tpointer\t!!\\(p == \\(\\(void \\*\\)0\\)\\)$' prof.data
expect_grep $'^unmatched 1 76\tpat.c\tshapes\t!!\\(a & 1\\)\tthe value is not branched on' prof.data
expect_grep $'^unmatched 1 83\tpat.c\tshapes\t\\(v\\)\tthe branch tests the value against 0, and the value may be other than 0 and 1' prof.data
exit 0
