#!/bin/bash
# Every run linkopt-startup --placement=best makes of a workload (traced
# under pagein, natively with its page faults recorded, measured by pfstat, timed as the
# steady one) gives the program the same standard streams, whatever
# linkopt-startup's own are: here a pipe for each of the three, as under
# `make 2>&1 | tee`.  A program that takes another path when a stream is
# a pipe (Python's FileIO.seekable runs its .cold part then) took it in
# the trace (stderr inherited) and not in the measured cold start (pfstat
# sends it to /dev/null): the model read a window more than the disk did,
# 29 pages of Python's 1017.  prog records its streams in streams.log on
# each run, and runs pipe_only, 600 KiB away from the rest, when one is a
# pipe or a terminal.  With root, the model is within 4 pages of the
# measured cold start on every candidate.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_buildsys
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

startup_functions w 40 > work.c
startup_far pipe_only
cat > main.c <<'EOF2'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int w3(int), w11(int), w19(int), w27(int), w35(int), w38(int), pipe_only(int);
static const char *kind(int fd)
{
	if (isatty(fd))
		return "terminal";
	if (lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE)
		return "pipe";
	return "file";
}
int main(int argc, char **argv)
{
	char line[128];
	int s = w3(1) + w11(2) + w19(3) + w27(4) + w35(5) + w38(6), fd, n;

	n = snprintf(line, sizeof(line), "in=%s out=%s err=%s\n", kind(0), kind(1), kind(2));
	if (strstr(line, "pipe") || strstr(line, "terminal"))
		s += pipe_only(argc) - pipe_only(argc);
	if (argc > 1 && (fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0) {
		if (write(fd, line, n) != n)
			s++;
		close(fd);
	}
	printf("%d\n", s);
	return 0;
}
EOF2
"${cc[@]}" -O2 -ffunction-sections -fdata-sections -c work.c main.c || fail "compile"
"${cc[@]}" -o prog main.o work.o || fail "link"
run_ok want.out ./prog

# linkopt-startup's stdin, stdout and stderr: pipes
search() {
	echo input | "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-bolt --no-relr --no-segments --measure-all \
		--workload="./prog $PWD/streams.log" --steady="./prog $PWD/steady.log" -- ./prog "$PWD/first.log" 2>&1 | cat
	return "${PIPESTATUS[1]}"
}
search > best.out
status=$?
cat best.out
((status == 0)) || fail "linkopt-startup --placement=best: exit status $status"
run_ok got.out ./prog
expect_same want.out got.out "the chosen layout's output"
cat first.log streams.log steady.log > all.log
[[ -s streams.log && -s steady.log ]] || fail "the workloads did not run: $(ls)"
sort -u all.log > kinds.txt
(($(wc -l < kinds.txt) == 1)) || fail "the runs of the workloads saw different streams: $(sort all.log | uniq -c)"
expect_no_grep 'pipe\|terminal' kinds.txt
# the model and the measured cold start agree on every candidate (root:
# a loop device); with the stderr of the trace a pipe, the model read
# pipe_only's window and the disk did not
again() {
	"$LINKOPT_STARTUP" --dir="$dir" --target=prog --undo -- true && "${cc[@]}" -o prog main.o work.o && search
}
((EUID == 0)) && startup_model_agrees best.out again
exit 0
