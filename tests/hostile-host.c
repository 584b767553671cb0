/* hostile-host: the host program of the hostile-conditions matrix
   (tests/hostile-matrix) and of the ThreadSanitizer test of the runtimes
   (tests/t-tsan-runtimes.sh).  It is built plain, with -finstrument-functions
   and cygtrace's runtime, and with likely-check's cflags and runtime; the
   hints below are the sites likely-check counts.

   usage: hostile-host SCENARIO [PLUGIN [CYCLES]]
     plain    a few functions; exit status 3
     fork     three fork children that exit(4) with their work done; 3
     vfork    a vfork child that execs "plain", one that _exits(6); 3
     exec     replaces itself with "plain" (whose status, 3, it ends with)
     exit     _exit(3) with the output flushed by hand
     abort    abort(): killed by SIGABRT
     signal   a handler that returns, then one that calls exit(5)
     threads  eight threads entering functions and hints at once, one of
              them forking meanwhile; 3
     dlopen   two threads loading, calling and unloading PLUGIN CYCLES
              times in all (default 1000); 3
     many     300,000 distinct addresses entered through the
              -finstrument-functions hook (glibc's does nothing), and 1,000
              distinct functions, each with a hint; 3

   It prints only what is the same in every run (no pid, no address, no
   timing), so that its output under a tool compares byte for byte with
   its output without one; it writes nothing to stderr. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

void __cyg_profile_func_enter(void *function, void *call_site);

/* 1,000 distinct functions, many_1000 to many_1999 (the digits of the
   macro arguments are pasted into the name), each with a hint site. */
#define MANY_COUNT 1000
#define F1(n) __attribute__((noinline)) static int many_##n(int x) { return unlikely(x == n) ? 0 : x % 13 + 1; }
#define F10(n) F1(n##0) F1(n##1) F1(n##2) F1(n##3) F1(n##4) F1(n##5) F1(n##6) F1(n##7) F1(n##8) F1(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)
F100(10) F100(11) F100(12) F100(13) F100(14) F100(15) F100(16) F100(17) F100(18) F100(19)
#define T1(n) many_##n,
#define T10(n) T1(n##0) T1(n##1) T1(n##2) T1(n##3) T1(n##4) T1(n##5) T1(n##6) T1(n##7) T1(n##8) T1(n##9)
#define T100(n) T10(n##0) T10(n##1) T10(n##2) T10(n##3) T10(n##4) T10(n##5) T10(n##6) T10(n##7) T10(n##8) T10(n##9)
static int (*const many[MANY_COUNT])(int) = {
	T100(10) T100(11) T100(12) T100(13) T100(14) T100(15) T100(16) T100(17) T100(18) T100(19)
};

static char *self;

__attribute__((noinline)) static int work(int x)
{
	return likely(x >= 0) ? x * 3 + 1 : 0;
}

__attribute__((noinline)) static int child_work(int x)
{
	return unlikely(x > 100) ? 0 : work(x) + many[x % MANY_COUNT](x);
}

/* How a child ended, in words that do not change between runs. */
static void print_status(const char *what, int status)
{
	if (WIFEXITED(status))
		printf("%s: exit %d\n", what, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%s: signal %d\n", what, WTERMSIG(status));
	else
		printf("%s: status 0x%x\n", what, status);
}

static char *plain_argv[] = { NULL, "plain", NULL };

static int scenario_plain(void)
{
	printf("plain %d\n", work(4) + child_work(5));
	return 3;
}

static int scenario_fork(void)
{
	int i, status;

	for (i = 0; i < 3; i++) {
		pid_t pid;

		/* or every child's exit() writes the parent's pending output again */
		fflush(stdout);
		pid = fork();

		if (pid < 0) {
			printf("fork failed\n");
			return 1;
		}
		if (pid == 0)
			exit(child_work(i) > 0 ? 4 : 1);
		waitpid(pid, &status, 0);
		print_status("child", status);
	}
	printf("fork %d\n", work(1));
	return 3;
}

static int scenario_vfork(void)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = vfork();
	if (pid == 0) {
		/* nothing but exec or _exit in a vfork child */
		execv(self, plain_argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	print_status("exec child", status);
	pid = vfork();
	if (pid == 0)
		_exit(6);
	waitpid(pid, &status, 0);
	print_status("exit child", status);
	return 3;
}

static int scenario_exec(void)
{
	printf("exec %d\n", work(2));
	fflush(stdout);
	execv(self, plain_argv);
	printf("exec failed\n");
	return 1;
}

static int scenario_exit(void)
{
	printf("exit %d\n", work(3));
	fflush(stdout);
	_exit(3);
}

static int scenario_abort(void)
{
	printf("abort %d\n", work(4));
	fflush(stdout);
	abort();
}

static volatile sig_atomic_t handled;

__attribute__((noinline)) static void on_usr1(int signal_number)
{
	handled += work(signal_number) > 0;
}

__attribute__((noinline)) static void on_usr2(int signal_number)
{
	printf("signal: handled %d, then %d\n", (int)handled, child_work(signal_number));
	exit(5);
}

static int scenario_signal(void)
{
	struct sigaction action;

	memset(&action, 0, sizeof(action));
	sigemptyset(&action.sa_mask);
	action.sa_flags = SA_RESTART;
	action.sa_handler = on_usr1;
	sigaction(SIGUSR1, &action, NULL);
	action.sa_handler = on_usr2;
	sigaction(SIGUSR2, &action, NULL);
	raise(SIGUSR1);
	raise(SIGUSR1);
	raise(SIGUSR2);
	return 1;
}

#define THREADS 8

static pthread_barrier_t start_together;

__attribute__((noinline)) static void *thread_main(void *arg)
{
	long id = (long)arg, sum = 0;
	int i;

	pthread_barrier_wait(&start_together);
	for (i = 0; i < 20000; i++)
		if (likely(i % 8 != 0))
			sum += work(i % 50);
	/* each thread's own functions first, then every other thread's */
	for (i = 0; i < MANY_COUNT; i++)
		sum += many[(id * (MANY_COUNT / THREADS) + i) % MANY_COUNT](i);
	if (id == 0) {
		int status;
		pid_t pid = fork();

		if (pid == 0)
			exit(child_work(7) > 0 ? 4 : 1);
		waitpid(pid, &status, 0);
		sum += WIFEXITED(status) ? WEXITSTATUS(status) : 100;
	}
	return (void *)sum;
}

static int scenario_threads(void)
{
	pthread_t threads[THREADS];
	long total = 0;
	void *result;
	int i;

	pthread_barrier_init(&start_together, NULL, THREADS);
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&threads[i], NULL, thread_main, (void *)(long)i) != 0) {
			printf("pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < THREADS; i++) {
		pthread_join(threads[i], &result);
		total += (long)result;
	}
	printf("threads %ld\n", total);
	return 3;
}

static const char *plugin;

__attribute__((noinline)) static void *load_and_unload(void *arg)
{
	long cycles = (long)arg, sum = 0, i;

	for (i = 0; i < cycles; i++) {
		void *handle = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
		int (*plug)(int);

		if (!handle)
			return (void *)-1L;
		*(void **)&plug = dlsym(handle, "plug");
		sum += plug ? plug((int)i) : -1000000;
		dlclose(handle);
	}
	return (void *)sum;
}

static int scenario_dlopen(int cycles)
{
	pthread_t other;
	void *result;
	long sum;

	if (pthread_create(&other, NULL, load_and_unload, (void *)(long)(cycles / 2)) != 0) {
		printf("pthread_create failed\n");
		return 1;
	}
	sum = (long)load_and_unload((void *)(long)(cycles - cycles / 2));
	pthread_join(other, &result);
	if (sum < 0 || (long)result < 0) {
		printf("dlopen failed\n");
		return 1;
	}
	printf("dlopen %d cycles: %ld\n", cycles, sum + (long)result);
	return 3;
}

static int scenario_many(void)
{
	static char area[300000];
	long sum = 0;
	size_t i;

	for (i = 0; i < sizeof(area); i++)
		__cyg_profile_func_enter(area + i, (void *)scenario_many);
	for (i = 0; i < MANY_COUNT; i++)
		sum += many[i]((int)i);
	printf("many %ld\n", sum);
	return 3;
}

int main(int argc, char **argv)
{
	const char *scenario = argc > 1 ? argv[1] : "";

	self = plain_argv[0] = argv[0];
	plugin = argc > 2 ? argv[2] : "./hostile-plug.so";
	if (!strcmp(scenario, "plain"))
		return scenario_plain();
	if (!strcmp(scenario, "fork"))
		return scenario_fork();
	if (!strcmp(scenario, "vfork"))
		return scenario_vfork();
	if (!strcmp(scenario, "exec"))
		return scenario_exec();
	if (!strcmp(scenario, "exit"))
		return scenario_exit();
	if (!strcmp(scenario, "abort"))
		return scenario_abort();
	if (!strcmp(scenario, "signal"))
		return scenario_signal();
	if (!strcmp(scenario, "threads"))
		return scenario_threads();
	if (!strcmp(scenario, "dlopen"))
		return scenario_dlopen(argc > 3 ? atoi(argv[3]) : 1000);
	if (!strcmp(scenario, "many"))
		return scenario_many();
	fprintf(stderr, "usage: hostile-host plain|fork|vfork|exec|exit|abort|signal|threads|dlopen|many "
		"[PLUGIN [CYCLES]]\n");
	return 2;
}
