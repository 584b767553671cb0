# pgo-run/test-fixtures.sh: sourced by tests/t-pgo-*.sh after tests/lib.sh.

PGO_RUN=${PGO_RUN:-$TOP/pgo-run/pgo-run}
[[ -x $PGO_RUN ]] || fail "no pgo-run binary at $PGO_RUN (run make)"
need gcc gcov gcov-tool gcov-dump make

# pgo OUT ERR ARGS…: run pgo-run, stdout to OUT, stderr to ERR; the exit
# status is left in PGO_STATUS.  A crash or a hang fails the test.
pgo() {
	local out=$1 err=$2
	shift 2
	PGO_STATUS=0
	timeout -k 5 120 "$PGO_RUN" "$@" > "$out" 2> "$err" < /dev/null || PGO_STATUS=$?
	(( PGO_STATUS == 124 )) && fail "pgo-run $* timed out"
	if (( PGO_STATUS >= 128 )); then
		cat "$err" >&2
		fail "pgo-run $* crashed (exit status $PGO_STATUS)"
	fi
	return 0
}

# pgo_ok OUT ERR ARGS…: run pgo-run and fail unless it exits 0.
pgo_ok() {
	pgo "$@"
	if (( PGO_STATUS != 0 )); then
		cat "$1" "$2" >&2
		shift 2
		fail "pgo-run $* exited $PGO_STATUS"
	fi
}

# pgo_status N WHAT: fail unless the last pgo-run exited with N.
pgo_status() {
	(( PGO_STATUS == $1 )) || fail "$2: exit status $PGO_STATUS, expected $1"
}

# counters FILE.gcda: the counter values gcov-dump lists, without the
# header (stamp, checksums), one record per line.
counters() {
	gcov-dump -l "$1" | sed 's/^[^:]*://' | grep -E '^ +(0|[0-9]+):|COUNTERS' |
		sed 's/^ *//'
}

# sample_project DIR: a small make project: prog (main.c, work.c) whose
# branch taken depends on its argument.
sample_project() {
	mkdir -p "$1"
	cat > "$1/Makefile" <<MK
CFLAGS = -O2
prog: main.o work.o
	\$(CC) \$(CFLAGS) \$(LDFLAGS) -o \$@ main.o work.o
clean:
	rm -f prog *.o *.gcno
MK
	cat > "$1/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
long work(long n, int mode);
int main(int argc, char **argv)
{
	int mode = argc > 1 ? atoi(argv[1]) : 0;

	printf("%ld\n", work(100000, mode));
	return 0;
}
C
	cat > "$1/work.c" <<'C'
long work(long n, int mode)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += mode ? i % 3 : i % 5;
	return s;
}
C
}

# snapshot STORE FILE: the profile in use, its files and their sums
snapshot() {
	local f
	{
		readlink "$1"/*/profile
		for f in "$1"/*/profile/*.gcda "$1"/*/profile/meta; do
			echo "$f $(cksum < "$f")"
		done
	} > "$2"
}

# left_behind STORE: the folders of the store that no profile in use is
left_behind() {
	local keep d
	keep=$(readlink -f "$1"/*/profile)
	for d in "$1"/*/raw.* "$1"/*/p.*; do
		[[ -e $d && $(readlink -f "$d") != "$keep" ]] && echo "$d"
	done
	return 0
}

# refused WHAT STORE OUT: the cycle stopped before anything was installed,
# the profile in use is the one snapshot took, and no unfinished folder of
# the store is left
refused() {
	pgo_status 1 "$1"
	expect_no_grep 'installed|^\[optimized build\]' "$3" "$1: stdout"
	expect_grep '^\[total\] failed; the profile in use is the last good one$' "$3" "$1: stdout"
	snapshot "$2" ../after
	expect_same ../before ../after "the profile after $1"
	left_behind "$2" > ../left
	expect_empty ../left "$1: unfinished folders left in the store"
}
