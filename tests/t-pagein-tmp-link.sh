#!/bin/bash
# A symbolic or hard link planted at pagein's temporary name (FILE.tmp or
# FILE.tmp.PID, which anybody who can write the folder can foresee) is
# never written through, nor removed: the trace is made as a new file
# under a free name and the file behind the link stays as it was.  Before,
# FILE.tmp was opened with O_TRUNC: a root run of pagein truncated and
# overwrote whatever the link led to; later it removed whatever had that
# name.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

printf '#include <stdio.h>\nint main(void) { puts("ran"); return 0; }\n' > prog.c
gcc -O1 -o prog prog.c || fail "cannot build prog"

mkdir out
echo "somebody else's" > victim
# kind|how the link is made
while IFS='|' read -r kind how; do
	rm -f out/t.trace out/t.trace.tmp*
	$how "$PWD/victim" out/t.trace.tmp || fail "$kind: cannot make the link"
	# the tool's own name: the pid valgrind will have is the next one or so
	next=$(($(sh -c 'echo $$') + 1))
	for ((pid = next; pid < next + 40; pid++)); do
		$how "$PWD/victim" out/t.trace.tmp.$pid
	done
	status=0
	"$PAGEIN" --output="$PWD/out/t.trace" -- ./prog > stdout 2> stderr || status=$?
	((status == 0)) || fail "$kind: pagein exited $status: $(head -n 3 stderr)"
	[[ $(cat stdout) == ran ]] || fail "$kind: the program's output changed"
	[[ $(cat victim) == "somebody else's" ]] || fail "$kind: the file behind the link was written: $(head -c 40 victim)"
	[[ -f out/t.trace && ! -L out/t.trace ]] || fail "$kind: no trace at the named file"
	[[ $(tail -n 1 out/t.trace) == '# end' ]] || fail "$kind: the trace is not complete"
	"$TOP/pagein/pagein-report" out/t.trace > /dev/null 2> report.err || fail "$kind: pagein-report: $(cat report.err)"
	expect_empty report.err "$kind: pagein-report's messages"
	for link in out/t.trace.tmp*; do
		if [[ $kind == symbolic* ]]; then
			[[ -L $link && $(readlink "$link") == "$PWD/victim" ]] || fail "$kind: $link was replaced or removed"
		else
			[[ $link -ef victim ]] || fail "$kind: $link was replaced or removed"
		fi
	done
done <<'EOF2'
symbolic link|ln -s
hard link|ln
EOF2
exit 0
