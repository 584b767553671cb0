#!/bin/bash
# The cygtrace runtime never changes the program it is loaded into: an
# unwritable folder, exit from a signal handler, threads that never end;
# the start-up stop point (function, time, signal); call-graph edges; and
# cygtrace-resolve refuses a trace whose binary has changed.
. "$(dirname "$0")/lib.sh"
need gcc
CYG=$TOP/cygtrace
[[ -f $CYG/libcygtrace.so && -x $CYG/cygtrace-resolve ]] || fail "cygtrace is not built"

cat > prog.c <<'EOF2'
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
__attribute__((noinline)) int phase1(int x) { return x + 1; }
__attribute__((noinline)) int phase2(int x) { return x + 2; }
__attribute__((noinline)) int phase3(int x) { return x + 3; }
__attribute__((noinline)) void leave(int signo) { (void)signo; exit(5); }
static volatile int started;
void *forever(void *p) { (void)p; started = 1; for (;;) pause(); return NULL; }
int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int s = phase1(1), i;
	pthread_t t;

	if (!strcmp(mode, "signal"))
		raise(SIGUSR1);
	if (!strcmp(mode, "sleep")) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (!strcmp(mode, "thread") || !strcmp(mode, "fork")) {
		pthread_create(&t, NULL, forever, NULL);
		while (!started)
			sched_yield();
	}
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();

		if (pid == 0)
			exit(phase3(0) == 3 ? 0 : 1);
		waitpid(pid, NULL, 0);
	}
	for (i = 0; i < 3; i++)
		s += phase2(i);
	if (!strcmp(mode, "exit-in-handler")) {
		signal(SIGUSR2, leave);
		raise(SIGUSR2);
	}
	s += phase3(s);
	printf("%d\n", s);
	return 3;
}
EOF2
gcc -O1 -finstrument-functions -o prog prog.c -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG" -lpthread || fail "cannot build prog"
gcc -O1 -o prog-plain prog.c -lpthread || fail "cannot build prog-plain"
run_status expected.out ./prog-plain
((RUN_STATUS == 3)) || fail "prog-plain: $(status_name $RUN_STATUS), expected exit status 3"

run() { # DIR MODE [ENV...]: runs prog, prints its exit status
	local dir=$1 mode=$2 status=0
	shift 2
	mkdir -p "$dir"
	env CYGTRACE_DIR="$PWD/$dir" "$@" ./prog $mode > "$dir.out" 2> "$dir.err" || status=$?
	echo "$status"
}
functions() { "$CYG/cygtrace-resolve" -q "$1"/cygtrace.* | awk '{ print $6 }' | tr '\n' ' '; }

# Plain run: status and output are the program's own.
[[ $(run plain "") == 3 ]] || fail "the exit status changed"
expect_same expected.out plain.out "the program's output"
[[ $(functions plain) == "main phase1 phase2 phase3 " ]] || fail "plain: $(functions plain)"

# A folder that cannot be written: the program runs as ever; one message.
status=0
CYGTRACE_DIR=/nonexistent/folder ./prog > nowrite.out 2> nowrite.err || status=$?
((status == 3)) || fail "unwritable folder: status $status"
expect_same expected.out nowrite.out "unwritable folder: the program's output"
[[ $(wc -l < nowrite.err) -eq 1 ]] || fail "unwritable folder: expected one message, got: $(cat nowrite.err)"
expect_grep '^cygtrace: /nonexistent/folder: cannot write the trace: No such file or directory; the program goes on without it$' \
	nowrite.err "unwritable folder"

# Stop points: a function, a time, a signal.  Recording ends there.
[[ $(run stopfn "" CYGTRACE_STOP=phase2) == 3 ]] || fail "stop at phase2: status"
[[ $(functions stopfn) == "main phase1 " ]] || fail "stop at phase2: $(functions stopfn)"
grep -q '^# reason: stop$' stopfn/cygtrace.* || fail "stop at phase2: the reason is not stop"
[[ $(run stoptime sleep CYGTRACE_STOP=50ms) == 3 ]] || fail "stop at 50ms: status"
[[ $(functions stoptime) == "main phase1 " ]] || fail "stop at 50ms: $(functions stoptime)"
[[ $(run stopsig signal CYGTRACE_STOP=SIGUSR1) == 3 ]] || fail "stop at SIGUSR1: status (the signal killed it?)"
[[ $(functions stopsig) == "main phase1 " ]] || fail "stop at SIGUSR1: $(functions stopsig)"
expect_empty stopsig.err "stop at SIGUSR1: stderr"

# exit() from a signal handler, and a thread that never ends.
[[ $(run handler exit-in-handler) == 5 ]] || fail "exit in a handler: status"
[[ $(functions handler) == "main phase1 phase2 leave " ]] || fail "exit in a handler: $(functions handler)"
[[ $(run thread thread) == 3 ]] || fail "a thread that never ends: status"
[[ $(functions thread) == "main phase1 forever phase2 phase3 " ]] || fail "thread: $(functions thread)"

# fork while another thread runs: the child, with one thread left, records
# and writes its own trace; the parent goes on.
[[ $(run forked fork) == 3 ]] || fail "fork in a threaded program: status"
[[ $(ls forked | wc -l) -eq 2 ]] || fail "fork in a threaded program: expected two traces: $(ls forked)"
"$CYG/cygtrace-resolve" -q forked/cygtrace.* | awk '{ print $6 }' > merged
printf '%s\n' main phase1 forever phase3 phase2 > want
expect_same want merged "fork in a threaded program: the merged first entries, each once"

# Call-graph edges: every call counted with CYGTRACE_EDGES=1.
run edges "" CYGTRACE_EDGES=1 > /dev/null
"$CYG/cygtrace-resolve" --edges edges/cygtrace.* | sort > edges.txt
printf '%s\n' "main phase1 1" "main phase2 3" "main phase3 1" > want
expect_same want edges.txt "edges"

# A rebuilt binary no longer matches the trace: refused.
sed -i 's/return x + 3;/return x + 4;/' prog.c
gcc -O1 -finstrument-functions -o prog prog.c -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG" -lpthread
status=0
"$CYG/cygtrace-resolve" plain/cygtrace.* > /dev/null 2> stale.err || status=$?
((status == 1)) || fail "a stale trace: status $status"
expect_grep 'build-id [0-9a-f]+ in the trace, [0-9a-f]+ in the file' stale.err "a stale trace"
printf 'junk\n' > junk
status=0
"$CYG/cygtrace-resolve" junk > /dev/null 2> junk.err || status=$?
((status == 1)) || fail "a foreign file: status $status"
expect_grep "^cygtrace-resolve: junk: not a cygtrace trace" junk.err "a foreign file"
# A full disk: the write fails, one message, no temporary file, the program
# as ever.  (Needs a tmpfs mount: root, as CI runs; the test says SKIP
# elsewhere, since this case did not run.)
# (prog is the rebuilt one of the case above)
gcc -O1 -o prog-plain prog.c -lpthread || fail "cannot build prog-plain"
run_status expected.out ./prog-plain
((RUN_STATUS == 3)) || fail "prog-plain: $(status_name $RUN_STATUS), expected exit status 3"
mkdir full
mount -t tmpfs -o size=64k tmpfs full 2> mount.err ||
	skip "cannot mount a 64 KiB tmpfs for a full disk: $(head -1 mount.err)"
at_exit 'umount "$TEST_WORKDIR/full" 2> /dev/null'
dd if=/dev/zero of=full/fill bs=4k 2> /dev/null
status=0
CYGTRACE_DIR=$PWD/full ./prog > full.out 2> full.err || status=$?
((status == 3)) || fail "full disk: status $status"
expect_same expected.out full.out "full disk: the program's output"
[[ $(wc -l < full.err) -eq 1 ]] || fail "full disk: expected one message, got: $(cat full.err)"
expect_grep 'No space left on device; the program goes on without it$' full.err "full disk"
[[ $(ls full) == fill ]] || fail "full disk: left behind: $(ls full)"
exit 0
