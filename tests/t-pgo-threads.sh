#!/bin/bash
# Four concurrent runs of a program with four threads each, as one workload:
# the profile is valid and exact (every call counted: prefer-atomic counters,
# and the runtime's locked merge of the four runs), and the optimized build
# uses it without a warning.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

cat > Makefile <<MK
CFLAGS = -O2
threads: threads.o
	\$(CC) \$(CFLAGS) \$(LDFLAGS) -pthread -o \$@ threads.o
clean:
	rm -f threads *.o *.gcno
MK
cat > threads.c <<'C'
#include <pthread.h>
#include <stdio.h>

#define CALLS 5000000
static volatile long sink;
static pthread_barrier_t start;

__attribute__((noinline)) void hot(long i)
{
	if (i % 3 == 0)
		sink += i;
	else
		sink -= 1;
}

static void *worker(void *arg)
{
	/* all four threads count at the same moment */
	pthread_barrier_wait(&start);
	for (long i = 0; i < CALLS; i++)
		hot(i);
	return arg;
}

int main(void)
{
	pthread_t t[4];

	pthread_barrier_init(&start, NULL, 4);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	puts("done");
	return 0;
}
C
cat > workload.sh <<'SH'
#!/bin/sh
# four runs at once; fails when any run fails
./threads & a=$!
./threads & b=$!
./threads & c=$!
./threads & d=$!
wait $a && wait $b && wait $c && wait $d
SH
chmod +x workload.sh
pgo_ok out err ./workload.sh
expect_grep '0 coverage-mismatch warnings, 0 missing-profile' out
pgo_ok show err show --top 3
# 4 runs x 4 threads x 5000000 calls, not one lost
expect_grep '^ +80000000  hot \(threads.c:8\)$' show "pgo-run show"
