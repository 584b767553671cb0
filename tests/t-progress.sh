#!/bin/bash
# Long steps show a progress line on a terminal and nothing elsewhere:
# pagein tracing a program under valgrind, pgo-run's training workload and
# linkopt-bolt's check run, each under a pseudo-terminal (util-linux's
# script) write "\r\e[K" and a line naming the step with its seconds, and
# erase it at the end; with stderr a file or a pipe, with
# LINKOPT_PROGRESS=no or TERM=dumb, not one byte of it.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need script od

cat > slow.c <<'EOF2'
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	sleep(2);
	puts("slept");
	return 0;
}
EOF2
gcc -O2 -o slow slow.c || fail "cannot build slow"

# on_tty OUT COMMAND: runs the shell command on a pseudo-terminal; what it
# wrote there, in OUT.
on_tty() {
	script -qec "$2" /dev/null < /dev/null > "$1" 2>&1 || fail "under script: $2: status $?: $(cat -v "$1" | head -3)"
}

# expect_progress FILE LABEL: FILE holds the line drawn and redrawn
# ("\r\e[K" LABEL "  | N s") and, last, its erasure.
expect_progress() {
	local esc=$'\e'
	grep -aq -F $'\r'"$esc[K$2  " "$1" || fail "no progress line '$2' in: $(cat -v "$1" | head -c 400)"
	grep -aqE $'\r'"$esc\[K.*  [|/\\-] [0-9]+ s" "$1" || fail "no seconds in the progress line: $(cat -v "$1" | head -c 400)"
	# erased: after the last draw, an erasure that the label does not follow
	grep -ao $'\r'"$esc\[K[^"$'\r'"]*" "$1" | sed -n '/'"$esc"'\[K'"$(sed 's/[][\.*^$/]/\\&/g' <<< "$2")"'  /,$p' | tail -n +2 |
		grep -avF "$2  " | grep -q . || fail "the progress line was not erased: $(cat -v "$1" | tail -c 300)"
}

# expect_quiet FILE: not one byte of a progress line (a terminal ends each
# line with \r\n: that \r is no redraw).
expect_quiet() {
	if sed 's/\r$//' "$1" | grep -aq -e $'\r' -e $'\e'; then
		fail "progress bytes where there is no terminal: $(cat -v "$1" | head -c 300)"
	fi
}

# pagein on a terminal: the line while valgrind runs, erased before the
# program's last output ends up on screen; the trace is whole.
on_tty tty.out "LINKOPT_PROGRESS= TERM=xterm $PAGEIN --output=$PWD/tty.trace -- ./slow"
expect_progress tty.out "pagein: tracing ./slow under valgrind"
grep -aq slept tty.out || fail "the program's output is missing: $(cat -v tty.out | head -c 300)"
last_draw=$(grep -ao $'\r\e\\[K[^\r]*' tty.out | tail -1)
[[ $last_draw == $'\r\e[K' ]] || fail "the last thing written is not the erasure: $(printf '%s' "$last_draw" | cat -v)"
tail -1 tty.trace | grep -q '^# end$' || fail "the trace is incomplete"

# pagein elsewhere: stderr a file, a pipe, or the terminal turned off.
"$PAGEIN" --output="$PWD/file.trace" -- ./slow > file.out 2> file.err || fail "pagein with stderr to a file"
expect_empty file.err "pagein's stderr (a file)"
"$PAGEIN" --output="$PWD/pipe.trace" -- ./slow 2>&1 > pipe.out | cat > pipe.err
((PIPESTATUS[0] == 0)) || fail "pagein with stderr to a pipe: exit status ${PIPESTATUS[0]}"
expect_empty pipe.err "pagein's stderr (a pipe)"
on_tty off.out "LINKOPT_PROGRESS=no $PAGEIN --output=$PWD/off.trace -- ./slow"
expect_quiet off.out
on_tty dumb.out "TERM=dumb $PAGEIN --output=$PWD/dumb.trace -- ./slow"
expect_quiet dumb.out
# stdout on the terminal, stderr not: still nothing
on_tty split.out "TERM=xterm $PAGEIN --output=$PWD/split.trace -- ./slow 2> split.err"
expect_empty split.err "pagein's stderr (a file, stdout on a terminal)"
grep -aq $'\e' split.out && fail "progress on stdout: $(cat -v split.out | head -c 300)"

# pgo-run: its training workload, the line labelled as its step line.
. "$TOP/pgo-run/test-fixtures.sh"
sample_project p
on_tty pgo.out "cd p && TERM=xterm $PGO_RUN 'sleep 1; ./prog 1'"
expect_progress pgo.out "[train 1/1] sleep 1; ./prog 1"
grep -aq '^\[merge\] ' pgo.out || fail "pgo-run's step lines are missing: $(cat -v pgo.out | head -c 400)"
(cd p && TERM=xterm "$PGO_RUN" 'sleep 1; ./prog 1' > ../pgo-file.out 2> ../pgo-file.err) || fail "pgo-run without a terminal"
expect_quiet pgo-file.out
expect_quiet pgo-file.err

# linkopt-bolt: its check run.
if command -v llvm-bolt-16 > /dev/null; then
	cat > bp.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int hot(int x) { return (x * 2654435761u) >> 7; }
int main(int argc, char **argv)
{
	long s = 0;
	int i, n = argc > 1 ? atoi(argv[1]) : 1000;

	for (i = 0; i < n; i++)
		s += hot(i) & 0xff;
	printf("%ld\n", s);
	return 0;
}
EOF2
	gcc -O2 -g -Wl,--emit-relocs -o bp bp.c || fail "cannot build bp"
	"$PAGEIN" --granularity=function --branches=yes --output="$PWD/bp.trace" -- ./bp 100 > /dev/null 2>&1 ||
		fail "pagein --branches"
	on_tty bolt.out "TERM=xterm $TOP/linkopt-bolt/linkopt-bolt --startup bp.trace --check 'sleep 1; %b 50' -o bp.bolt ./bp"
	expect_progress bolt.out "linkopt-bolt: check: sleep 1; './bp' 50"
	grep -aq '^written: bp.bolt' bolt.out || fail "linkopt-bolt's output: $(cat -v bolt.out | head -c 400)"
	"$TOP/linkopt-bolt/linkopt-bolt" --startup bp.trace --check 'sleep 1; %b 50' -o bp2.bolt ./bp > bolt-file.out 2> bolt-file.err ||
		fail "linkopt-bolt without a terminal: $(cat bolt-file.err)"
	expect_quiet bolt-file.out
	expect_quiet bolt-file.err
else
	echo "linkopt-bolt's part skipped: no llvm-bolt-16"
fi
exit 0
