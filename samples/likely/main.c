/* A program with known right, wrong and useless hints, for likely-check.
   With N = 10000 (no argument), the exact counts are:
     right     likely(i % 100 != 0)        correct  9900  incorrect   100
     wrong     unlikely(i % 10 != 0)       correct  1000  incorrect  9000
     useless   likely(i & 1)               correct  5000  incorrect  5000
     CHECK_RANGE(i % 50, 45)               correct  9000  incorrect  1000
     CHECK_RANGE(i % 3, 2)                 correct  6667  incorrect  3333
     threads   likely(i % 4 != 0), 4 x 25000  correct 75000  incorrect 25000
     forked    unlikely(i % 2 == 0) in a fork child  correct 500  incorrect 500
     dso_work  unlikely(i % 1000 == 999)  correct  9990  incorrect    10
     main      unlikely(argc > 5)          correct     1  incorrect     0
     main      likely(sizeof(long) == 8)   constant at compile time
     rare      likely(n > 0)               never runs */
#include "hints.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 10000
#define THREADS 4

static volatile int sink;

__attribute__((noinline)) static void right(int n)
{
	for (int i = 0; i < n; i++)
		if (likely(i % 100 != 0))
			sink++;
}

__attribute__((noinline)) static void wrong(int n)
{
	for (int i = 0; i < n; i++)
		if (unlikely(i % 10 != 0))
			sink++;
}

__attribute__((noinline)) static void useless(int n)
{
	for (int i = 0; i < n; i++)
		if (likely(i & 1))
			sink++;
}

__attribute__((noinline)) static int ranges(int n)
{
	int over = 0;

	for (int i = 0; i < n; i++) {
		CHECK_RANGE(i % 50, 45, over);
		CHECK_RANGE(i % 3, 2, over);
	}
	return over;
}

static void *thread_main(void *arg)
{
	int n = *(int *)arg;

	for (int i = 0; i < n; i++)
		if (likely(i % 4 != 0))
			sink++;
	return NULL;
}

__attribute__((noinline)) static void forked(int n)
{
	for (int i = 0; i < n; i++)
		if (unlikely(i % 2 == 0))
			sink++;
}

__attribute__((noinline)) int rare(int n)
{
	if (likely(n > 0))
		return n;
	return -n;
}

int main(int argc, char **argv)
{
	pthread_t threads[THREADS];
	int per_thread = N * 10 / THREADS, status;
	pid_t pid;

	if (unlikely(argc > 5))
		return rare(argc);
	if (likely(sizeof(long) == 8))
		sink++;
	right(N);
	wrong(N);
	useless(N);
	printf("over %d\n", ranges(N));
	for (int t = 0; t < THREADS; t++)
		if (pthread_create(&threads[t], NULL, thread_main, &per_thread) != 0)
			return 1;
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		forked(1000);
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	printf("dso %d\n", dso_work(N));
	(void)argv;
	return 0;
}
