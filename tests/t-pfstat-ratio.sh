#!/bin/bash
# pfstat --compare names a ratio over a zero median for what it is: "n/a
# (0/0)" when both medians are 0, "n/a (B/0)" when only the first is, never
# a number (0 over a median that is not 0 is a ratio: 0.00x).  Before,
# both printed as 0.00x: a command that reads a file
# whole "read 0.00x" the pages of one that never touches it.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup

head -c $((64 * 4096)) /dev/urandom > data
# the first command never reads data, the second reads it whole
run_ok read.out "$PF" -n 3 --cold data --compare './probe read data' -- ./probe touch 10
expect_grep '^  pages read +0\.0 +0\.0 +0\.0 +64\.0 +n/a \(64\.0/0\)$' read.out "pages read: 64 against 0"
expect_grep '^major faults +0\.0 +0\.0 +0\.0 +[1-9][0-9]*\.[05] +n/a \([1-9][0-9]*\.[05]/0\)$' read.out \
	"major faults: some against 0"

run_ok same.out "$PF" -n 3 --compare './probe touch 10' -- ./probe touch 10
expect_grep '^major faults +0\.0 +0\.0 +0\.0 +0\.0 +n/a \(0/0\)$' same.out "major faults: 0 against 0"
expect_grep '^minor faults( +[0-9]+\.[05]){4} +[0-9]+\.[0-9][0-9]x$' same.out "a ratio over a median that is not 0"
exit 0
