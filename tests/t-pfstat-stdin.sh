#!/bin/bash
# Every run of pfstat reads the same standard input.  A program that counts
# the lines of its input sees all 1,000 in each of 5 runs (-n 5) and in
# each run of both commands of --compare: from a file (rewound to where it
# stood for each run), from a pipe (read once, each run gets all of it),
# and from a pipe of more than a pipe holds (2 MB, written by a feeder
# during each run).  Before, only the first run read it: 1000 lines, then
# 0 lines in every other run, and the medians mixed the two workloads.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup

seq 1000 > in.txt
for i in 1 2 3 4 5; do echo "1000 lines 3893 bytes"; done > want5
for i in 1 2 3 4 5 6; do echo "1000 lines 3893 bytes"; done > want6

# the command's output comes first (--show-output), the report after it
run_ok file.out "$PF" -n 5 --show-output -- ./probe lines < in.txt
head -n 5 file.out > file.lines
expect_same want5 file.lines "5 runs with a file on standard input"
expect_grep '^standard input: a file: 3893 bytes from offset 0, the same to each run$' file.out "the report"
expect_grep '^pfstat: \./probe lines \(5 runs\)$' file.out "the report's title"

run_ok pipe.out "$PF" -n 5 --show-output -- ./probe lines < <(seq 1000)
head -n 5 pipe.out > pipe.lines
expect_same want5 pipe.lines "5 runs with a pipe on standard input"
expect_grep '^standard input: a pipe: 3893 bytes, read once, the same to each run$' pipe.out "the report"

# both commands of --compare, 3 runs each
run_ok cmp.out "$PF" -n 3 --show-output --compare './probe lines' -- ./probe lines < <(seq 1000)
head -n 6 cmp.out > cmp.lines
expect_same want6 cmp.lines "3 runs of each --compare command with a pipe on standard input"

# more than a pipe holds: a feeder writes it during each run
seq 300000 > big.txt
big=$(wc -c < big.txt)
for i in 1 2 3; do echo "300000 lines $big bytes"; done > want-big
run_ok big.out "$PF" -n 3 --show-output -- ./probe lines < <(cat big.txt)
head -n 3 big.out > big.lines
expect_same want-big big.lines "3 runs with 2 MB from a pipe"

# a file read in part before pfstat: each run starts where it stood
for i in 1 2 3; do echo "999 lines 3891 bytes"; done > want-rest
{ read -r first; "$PF" -n 3 --show-output -- ./probe lines > rest.out 2> rest.err; echo $? > rest.status; } < in.txt
[[ $first == 1 && $(cat rest.status) == 0 ]] || fail "pfstat after a read of the first line: $(cat rest.err)"
head -n 3 rest.out > rest.lines
expect_same want-rest rest.lines "3 runs from a file whose first line was read before"
exit 0
