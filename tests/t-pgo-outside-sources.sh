#!/bin/bash
# Sources outside the build folder (lz4's layout: programs/Makefile builds
# ../lib/*.c into ../lib/*.o): every object that got profile data is
# tracked wherever it lies, so show lists the library's functions and an
# edit of ../lib/hot.c makes the profile stale.  Run from programs/ and,
# with make -C programs, from the top folder: the profile files are named
# differently (^#lib#hot, programs#^#lib#hot), the result is the same.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

mkdir -p top/lib top/programs
cat > top/lib/hot.c <<'C'
long hot_sum(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i % 7 ? i : -i;
	return s;
}
C
cat > top/lib/cold.c <<'C'
long cold_never(long n)
{
	return n * 3;
}
C
cat > top/programs/main.c <<'C'
#include <stdio.h>
long hot_sum(long n);
long cold_never(long n);
int main(int argc, char **argv)
{
	printf("%ld\n", argc > 5 ? cold_never(argc) : hot_sum(100000));
	return 0;
}
C
cat > top/programs/Makefile <<'MK'
CFLAGS ?= -O2
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard ../lib/*.c) main.c))
prog: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS)
clean:
	rm -f prog $(OBJS) ../lib/*.gcno *.gcno
MK

# check_profile DIR PGO-ARGS…: the profile made from DIR tracks all three
# objects, lists hot_sum, and goes stale when ../lib/hot.c changes.
check_profile() {
	local dir=$1 here=$PWD
	shift
	cd "$dir"
	pgo_ok "$here/out" "$here/err" "$@"
	pgo_ok "$here/show" "$here/err" show "${@:1:2}" --top 5
	pgo_ok "$here/status" "$here/err" status "${@:1:2}"
	cd "$here"
	expect_grep '^\[merge\] 3 objects instrumented, 3 with profile data, 0 without$' out
	expect_grep '^ +1  hot_sum \(\.\./lib/hot\.c:1\)$' show "pgo-run show"
	expect_grep '^ +1  main \(main\.c:4\)$' show "pgo-run show"
	expect_grep '^stale: no$' status
	cp top/lib/hot.c hot.c.good
	sed -i 's/i % 7/i % 11/' top/lib/hot.c
	cd "$dir"
	pgo "$here/status2" "$here/err" status "${@:1:2}"
	cd "$here"
	pgo_status 1 "status after ../lib/hot.c changed"
	expect_grep "^    changed since training: $PWD/top/lib/hot.c$" status2
	expect_grep '^stale: yes$' status2
	mv hot.c.good top/lib/hot.c
	(cd "$dir" && "$PGO_RUN" clean "${@:1:2}" > /dev/null) || fail "pgo-run clean"
}

check_profile top/programs --build make --clean 'make clean' './prog 1'
check_profile top --build 'make -C programs' --clean 'make -C programs clean' './programs/prog 1'
