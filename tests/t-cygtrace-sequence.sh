#!/bin/bash
# cygtrace records the first entry of every function, in order: a program
# with a known call sequence (recursion, an inlined function, a thread, a
# DSO loaded with dlopen and closed again, a forked child) resolves to
# exactly that sequence, per process; the static library gives the same.
. "$(dirname "$0")/lib.sh"
need gcc
CYG=$TOP/cygtrace
[[ -f $CYG/libcygtrace.so && -f $CYG/libcygtrace.a && -x $CYG/cygtrace-resolve ]] || fail "cygtrace is not built"

cat > plug.c <<'EOF2'
int plug(int x) { return x * 3; }
EOF2
cat > seq.c <<'EOF2'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static inline int square(int x) { return x * x; }
__attribute__((noinline)) int leaf(int x) { return x + 1; }
__attribute__((noinline)) int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
void *thread_main(void *p) { (void)p; return (void *)(long)leaf(2); }
__attribute__((noinline)) int in_child(void) { return 3; }
__attribute__((noinline)) int after_all(void) { return 4; }
int main(int argc, char **argv)
{
	pthread_t t;
	void *h;
	int (*plug)(int);
	pid_t pid;
	int s = square(argc + 2);

	s += fact(5) + fact(3);
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);
	h = dlopen("./libplug.so", RTLD_NOW);
	if (!h)
		return 2;
	plug = (int (*)(int))dlsym(h, "plug");
	s += plug(1);
	dlclose(h);
	pid = fork();
	if (pid == 0) {
		in_child();
		exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("%d %d\n", s, after_all() + leaf(1));
	(void)argv;
	return 0;
}
EOF2
gcc -O2 -finstrument-functions -fPIC -shared -o libplug.so plug.c || fail "cannot build libplug.so"
gcc -O2 -finstrument-functions -o seq seq.c -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG" || fail "cannot build seq"
gcc -O2 -finstrument-functions -o seq-static-runtime seq.c "$CYG/libcygtrace.a" || fail "cannot build with libcygtrace.a"
gcc -O2 -o seq-plain seq.c || fail "cannot build seq-plain"
run_ok plain.out ./seq-plain

check() { # NAME PROGRAM [ENV...]
	local name=$1 program=$2
	shift 2
	mkdir "$name"
	env CYGTRACE_DIR="$PWD/$name" "$@" "./$program" > "$name.out" 2> "$name.err" || fail "$name: the program failed"
	expect_same plain.out "$name.out" "$name: the program's output"
	expect_empty "$name.err" "$name: stderr"
	ls "$name" > "$name.files"
	[[ $(wc -l < "$name.files") -eq 2 ]] || fail "$name: expected a trace for the parent and the child: $(tr '\n' ' ' < "$name.files")"
	expect_no_grep 'tmp' "$name.files" "$name: no temporary files"
	local parent child
	for f in "$name"/cygtrace.*; do
		if grep -q '^# reason: exit$' "$f" && "$CYG/cygtrace-resolve" -q "$f" | grep -q ' after_all$'; then
			parent=$f
		else
			child=$f
		fi
	done
	[[ -n $parent && -n $child ]] || fail "$name: cannot tell the parent's trace from the child's"
	"$CYG/cygtrace-resolve" "$parent" > "$name.parent" 2> "$name.summary" || fail "$name: resolve failed"
	awk '{ print $5, $6 }' "$name.parent" | sed "s|^.*/||" > got
	printf '%s\n' ".text main" ".text square" ".text fact" ".text thread_main" ".text leaf" ".text plug" \
		".text after_all" > want
	expect_same want got "$name: the parent's first entries"
	awk '$6 == "plug" { print $4 }' "$name.parent" | grep -q 'libplug\.so$' || fail "$name: plug is not in libplug.so"
	# The thread's functions carry its own thread id.
	[[ $(awk '$6 == "thread_main" { print $3 }' "$name.parent") != $(awk '$6 == "main" { print $3 }' "$name.parent") ]] ||
		fail "$name: thread_main shows main's thread id"
	"$CYG/cygtrace-resolve" -q "$child" | awk '{ print $6 }' > got
	printf '%s\n' main square fact thread_main leaf plug in_child > want
	expect_same want got "$name: the child's first entries"
}
check shared seq
check static seq-static-runtime

# LD_PRELOAD onto a program built with -finstrument-functions alone (glibc's
# own hooks do nothing): the same sequence.
gcc -O2 -finstrument-functions -o seq-preload seq.c || fail "cannot build seq-preload"
rm -rf preload
check preload seq-preload LD_PRELOAD="$CYG/libcygtrace.so"

# An address with no function symbol (here: leaf's, stripped) is dropped
# and counted, never guessed.
objcopy --strip-symbol=leaf seq seq-noleaf || fail "objcopy failed"
mkdir noleaf
CYGTRACE_DIR=$PWD/noleaf ./seq-noleaf > /dev/null
parent=$(grep -l '^# reason: exit' noleaf/* | while read -r f; do grep -q "^# command: ./seq-noleaf" "$f" && echo "$f"; done | head -1)
"$CYG/cygtrace-resolve" "$parent" > noleaf.out 2> noleaf.err || fail "resolve failed on the stripped binary"
expect_no_grep ' leaf$' noleaf.out "stripped leaf"
expect_grep ', 1 dropped \(no out-of-line body' noleaf.err "the drop count"
exit 0
