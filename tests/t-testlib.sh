#!/bin/bash
# The checks of tests/lib.sh fail when what they check is broken: a
# program that crashes or exits non-zero after printing the expected
# output, a missing file given to expect_empty or expect_no_grep, a hung
# program; a test that skips exits 77 with its reason; and a test runs
# alone (tests/t-foo.sh) in a folder of its own, removed when it passes
# and kept when it fails.  Each row: the exit status a snippet of test
# code must end with, and a line its stderr must hold.
. "$(dirname "$0")/lib.sh"
need gcc

cat > prog.c <<'EOF2'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "ok";

	printf("hello\n");
	fflush(stdout);
	if (!strcmp(how, "segv"))
		raise(SIGSEGV);
	if (!strcmp(how, "exit3"))
		return 3;
	if (!strcmp(how, "hang"))
		pause();
	return 0;
}
EOF2
gcc -O1 -o prog prog.c || fail "cannot build prog"
printf 'hello\n' > want.out
: > empty

# snippet STATUS PATTERN CODE: CODE, run as a test after lib.sh, must exit
# with STATUS and print a line matching PATTERN on stderr.
n=0
snippet() {
	local want=$1 pattern=$2 code=$3 status=0
	n=$((n + 1))
	mkdir "s$n"
	printf '. "%s/lib.sh"\n%s\n' "$TESTDIR" "$code" > "s$n/t.sh"
	(cd "s$n" && TEST_WORKDIR=$PWD TEST_SKIP_FILE=$PWD/.skip RUN_TIMEOUT=2 bash t.sh > out 2> err) || status=$?
	((status == want)) || fail "row $n ($code): exit status $status, expected $want; stderr: $(head -5 "s$n/err")"
	expect_grep "$pattern" "s$n/err" "row $n ($code): stderr"
}

P=$PWD/prog W=$PWD/want.out
snippet 0 '^$' "expect_output '$W' got 'the output' '$P'; echo >&2"
snippet 1 "^FAIL: $P segv: killed by SIGSEGV, expected exit status 0" "expect_output '$W' got 'the output' '$P' segv"
snippet 1 "^FAIL: $P exit3: exit status 3, expected exit status 0" "expect_output '$W' got 'the output' '$P' exit3"
snippet 1 "^FAIL: $P hang hung" "expect_output '$W' got 'the output' '$P' hang"
snippet 1 "^FAIL: the output differs" "printf 'other\\n' > other; expect_output other got 'the output' '$P'"
snippet 1 "^FAIL: the output: no expected output missing" "expect_output missing got 'the output' '$P'"
snippet 0 '^$' "expect_exit 3 got '$P' exit3; echo >&2"
snippet 1 "^FAIL: $P segv: killed by SIGSEGV, expected exit status 3" "expect_exit 3 got '$P' segv"
snippet 1 "^FAIL: $P exit3: exit status 3, expected exit status 0" "run_ok got '$P' exit3"
snippet 0 '^$' "expect_empty '$PWD/empty'; echo >&2"
snippet 1 '^FAIL: nothing: no such file' "expect_empty nothing"
snippet 1 '^FAIL: nothing: no such file' "expect_no_grep x nothing"
snippet 1 '^FAIL: .*want.out: unexpected line matching /hello/' "expect_no_grep hello '$W'"
snippet 77 '^needs no-such-command-here$' "need no-such-command-here"
expect_grep '^needs no-such-command-here$' "s$n/.skip" "the skip reason"
snippet 3 '^first 3$' "at_exit 'echo first \$TEST_EXIT_STATUS >&2'; at_exit 'echo last >&2'; exit 3"
expect_same <(printf 'last\nfirst 3\n') "s$n/err" "at_exit: the order of the commands"

# Alone: a folder of its own, removed on success, kept on failure.
mkdir alone
for verdict in pass fail; do
	cat > alone/t-$verdict.sh <<EOF2
. "$TESTDIR/lib.sh"
pwd > "$PWD/alone/$verdict.dir"
touch made
[[ $verdict == pass ]] || fail "on purpose"
EOF2
done
status=0
(cd alone && env -u TEST_WORKDIR bash t-pass.sh > pass.out 2>&1) || status=$?
((status == 0)) || fail "a passing test run alone: exit status $status: $(cat alone/pass.out)"
expect_grep '^PASS t-pass$' alone/pass.out "a passing test run alone"
dir=$(cat alone/pass.dir)
[[ $dir != "$PWD/alone" ]] || fail "a test run alone worked in the folder it was started from"
[[ ! -e $dir ]] || fail "a passing test run alone left its folder $dir"
status=0
(cd alone && env -u TEST_WORKDIR bash t-fail.sh > fail.out 2>&1) || status=$?
((status == 1)) || fail "a failing test run alone: exit status $status"
dir=$(cat alone/fail.dir)
expect_grep "^FAIL t-fail \\(exit status 1; kept $dir\\)$" alone/fail.out "a failing test run alone"
[[ -f $dir/made ]] || fail "a failing test run alone did not keep its folder $dir"
rm -rf "$dir"
[[ ! -e alone/made ]] || fail "a test run alone wrote in the folder it was started from"
exit 0
