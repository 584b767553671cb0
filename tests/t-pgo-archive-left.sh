#!/bin/bash
# What a killed cycle left in the tree is told by what the files record,
# archives too: an archive its instrumented build made is listed (status)
# and removed (the next cycle) while it holds an instrumented object, and
# one the project made again since from plain objects is left alone.  An
# archive used to count as instrumented when written after the
# instrumented build began: status listed a plain libwork.a and exited 1,
# and the next cycle removed it.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need nm

sample_project p
cd p
cat > Makefile <<'MK'
CFLAGS = -O2
prog: main.o libwork.a
	$(CC) $(CFLAGS) -o $@ main.o libwork.a
libwork.a: work.o
	rm -f $@
	ar rc $@ work.o
clean:
	rm -f prog *.o *.a *.gcno
MK
pgo_ok ../out ../err './prog 1'

# kill_cycle: a cycle killed with SIGKILL during its workload
kill_cycle() {
	local pid
	rm -f started
	"$PGO_RUN" './prog 0 > /dev/null; touch started; sleep 60' > /dev/null 2>&1 &
	pid=$!
	while [[ ! -e started ]]; do
		kill -0 $pid 2> /dev/null || fail "pgo-run ended before its workload started"
		sleep 0.1
	done
	kill -KILL $pid
	wait $pid 2> /dev/null
	# the watchdog ends the workload
	sleep 1
}

kill_cycle
nm libwork.a | grep -q __gcov_ || fail "the killed cycle left no instrumented libwork.a: the test does not test"
pgo ../status1 ../err1 status
pgo_status 1 "status after a killed cycle"
expect_grep "^    instrumented: $PWD/libwork\.a$" ../status1

# the project builds again from scratch, plain: nothing is instrumented
sleep 1
make clean > /dev/null && make > /dev/null 2>&1 || fail "the plain build failed"
nm libwork.a | grep -q __gcov_ && fail "make made an instrumented libwork.a"
pgo ../status2 ../err2 status
expect_no_grep 'instrumented' ../status2 "status after a plain build"
pgo_status 0 "status after a plain build"
pgo_ok ../out3 ../err3 --retrain-if-stale './prog 1'
expect_no_grep 'removed instrumented' ../out3 "the next cycle"
exit 0
