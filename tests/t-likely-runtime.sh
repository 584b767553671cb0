#!/bin/bash
# The counting runtime never changes the program: an expression is
# evaluated once, the exit status and output stay the same when the data
# cannot be written (one message on stderr, no more), a DSO unloaded with
# dlclose keeps its counts, strict warning flags stay quiet, and a program
# linked with `likely-check ldflags` needs no preload.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
need gcc

cat > plug.c <<'EOF2'
#define unlikely(x) __builtin_expect(!!(x), 0)
int plug(int n)
{
	int odd = 0;

	for (int i = 0; i < n; i++)
		if (unlikely(i & 1))
			odd++;
	return odd;
}
EOF2
cat > prog.c <<'EOF2'
#include <dlfcn.h>
#include <stdio.h>
#define likely(x) __builtin_expect(!!(x), 1)
#define EXPECT(x, v) __builtin_expect((x), (v))

int main(int argc, char **argv)
{
	int n = 0, calls = 0;
	void *h;
	int (*plug)(int);

	while (likely(n++ < 5))
		calls++;
	if (EXPECT(argc, 1) != 1)
		calls += 100;
	printf("n %d calls %d\n", n, calls);
	h = dlopen(argc > 1 ? argv[1] : "./libplug.so", RTLD_NOW);
	if (!h)
		return 4;
	*(void **)&plug = dlsym(h, "plug");
	printf("plug %d\n", plug(10));
	dlclose(h);
	return 3;
}
EOF2
gcc -O2 -fPIC -shared $("$LC" cflags) -o libplug.so plug.c || fail "cannot build the plug-in"
gcc -O2 -std=c11 -pedantic -Wall -Wextra -Wshadow -Werror $("$LC" cflags) -o prog prog.c -ldl ||
	fail "the header draws warnings under -std=c11 -pedantic -Wall -Wextra -Wshadow -Werror"
printf 'n 6 calls 5\nplug 5\n' > want.out

status=0
./prog > plain.out 2> plain.err || status=$?
(( status == 3 )) || fail "plain run exited $status"
expect_same want.out plain.out "output without the runtime"

mkdir data
status=0
"$LC" run --dir data -- ./prog > run.out 2> run.err || status=$?
(( status == 3 )) || fail "run exited $status, expected the program's 3"
expect_same want.out run.out "output under the runtime"
expect_empty run.err "stderr under the runtime"
"$LC" report data/likely-check.* > report || fail "report failed"
expect_grep '^ +5 +1 +16.66  main .*prog.c:12  !!\(n\+\+ < 5\) \(expect 1\)$' report
expect_grep '^ +1 +0 +0.00  main .*prog.c:14  \(argc\) \(expect 1\)$' report
expect_grep '^ +5 +5 +50.00  plug .*plug.c:7  !!\(i & 1\) \(expect 0\)$' report
expect_grep '^module .*/libplug.so$' data/likely-check.*

# an output folder that cannot be written: same status, same output, one line
status=0
LIKELY_CHECK_DIR=$PWD/missing LD_PRELOAD=$TOP/likely-check/liblikely-check.so ./prog > bad.out 2> bad.err ||
	status=$?
(( status == 3 )) || fail "run with an unwritable folder exited $status"
expect_same want.out bad.out "output with an unwritable folder"
expect_lines bad.err 1 "messages with an unwritable folder"
expect_grep '^likely-check: .*/missing: cannot write the counts: No such file or directory$' bad.err

# linked against the runtime: no preload needed
gcc -O2 $("$LC" cflags) -o linked prog.c $("$LC" ldflags) -ldl || fail "cannot link with ldflags"
mkdir linked-data
status=0
LIKELY_CHECK_DIR=$PWD/linked-data ./linked > linked.out || status=$?
(( status == 3 )) || fail "linked run exited $status"
ls linked-data > files
expect_lines files 1 "data files of the linked program"

# threads hammering one site lose no count
cat > threads.c <<'EOF2'
#include <pthread.h>
#define likely(x) __builtin_expect(!!(x), 1)
static volatile int sink;
static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000000; i++)
		if (likely(i % 8 != 0))
			sink++;
	return 0;
}
int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, work, 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	return 0;
}
EOF2
gcc -O2 $("$LC" cflags) -o threads threads.c -lpthread || fail "cannot build the threaded program"
mkdir thread-data
"$LC" run --dir thread-data -- ./threads || fail "the threaded program failed"
"$LC" report thread-data/likely-check.* > thread-report || fail "report failed"
expect_grep '^ +7000000 +1000000 +12.50  work .*threads.c:8  !!\(i % 8 != 0\) \(expect 1\)$' thread-report
