#!/bin/bash
# fork and exec: with --trace-children=yes every process writes its own
# trace, named by its pid; a forked child that does not exec writes its own
# file too, with the pages it touches first.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > child.c <<'EOF2'
__attribute__((aligned(4096), noinline)) int child_work(void) { return 42; }
__attribute__((aligned(4096))) int main(void) { return child_work() == 42 ? 0 : 1; }
EOF2
cat > parent.c <<'EOF2'
#include <sys/wait.h>
#include <unistd.h>
__attribute__((aligned(4096), noinline)) int forked_work(void) { return 7; }
__attribute__((aligned(4096), noinline)) int parent_work(void) { return 1; }
__attribute__((aligned(4096))) int main(void)
{
	int status;
	pid_t a = fork(), b;

	if (a == 0)
		_exit(forked_work() == 7 ? 0 : 1);
	b = fork();
	if (b == 0) {
		execl("./child", "./child", (char *)0);
		_exit(127);
	}
	waitpid(a, &status, 0);
	waitpid(b, &status, 0);
	return parent_work() + WEXITSTATUS(status) - 1;
}
EOF2
gcc -O1 -o child child.c && gcc -O1 -o parent parent.c || fail "cannot build the fixtures"
mkdir out
"$PAGEIN" --trace-children=yes --output="$PWD/out/t.%p" -- ./parent 2> err.txt || fail "pagein: $(head -3 err.txt)"
ls out > files.txt
[[ $(wc -l < files.txt) -eq 3 ]] || fail "expected 3 traces (parent, forked child, exec'd child), got: $(tr '\n' ' ' < files.txt)"
expect_no_grep '\.tmp$' files.txt "traces"
here=$PWD
parent_trace= forked_trace= child_trace=
for f in out/*; do
	pid=${f##*.}
	grep -q "^# pid: $pid$" "$f" || fail "$f does not record pid $pid"
	if grep -q "^# object $here/child " "$f"; then
		child_trace=$f
	elif relative "$f" "$here/parent" C | grep -q ' parent_work$'; then
		parent_trace=$f
	else
		forked_trace=$f
	fi
done
[[ -n $child_trace && -n $parent_trace && -n $forked_trace ]] || fail "could not tell the three traces apart"
relative "$child_trace" "$here/child" C | grep -q "^$(page_of_symbol child child_work) child_work$" ||
	fail "the exec'd child's trace lacks child_work's page"
relative "$forked_trace" "$here/parent" C | grep -q "^$(page_of_symbol parent forked_work) forked_work$" ||
	fail "the forked child's trace lacks forked_work's page"
relative "$parent_trace" "$here/parent" C | grep -q ' forked_work$' &&
	fail "the parent's trace shows forked_work, which only the child ran"
exit 0
