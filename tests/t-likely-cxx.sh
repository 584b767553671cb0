#!/bin/bash
# likely-check on C++: a hint in a template and in an inline function of a
# header, used by two files, is one site each with every run counted, with
# g++ as with clang++.  gcc keeps the static site of an inline or template
# function in a COMDAT section of its own, outside the table the header
# builds, so such a site registers itself when it first runs (before, g++
# builds lost them without a word), and a shared library whose only hints
# are such sites keeps its counts across dlclose.  C++20's [[likely]] and
# [[unlikely]] are attributes, not calls: neither compiler lets the header
# see them, and the report does not list them.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
need g++ gcc

cat > hint.h <<'C'
#define LIKELY(x) __builtin_expect(!!(x), 1)
template <typename T> inline T pick(T a, int n)
{
	if (LIKELY(n % 10 != 0))
		return a;
	return a + 1;
}
inline int odd(int n)
{
	return __builtin_expect(n & 1, 0);
}
C
cat > a.cc <<'C'
#include "hint.h"
long in_a(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += pick(i, i) + odd(i);
	return s;
}
C
cat > b.cc <<'C'
#include <cstdio>
#include "hint.h"
long in_a(int n);
int main()
{
	long s = in_a(1000);
	for (int i = 0; i < 1000; i++) {
		s += pick(2L, i) + odd(i);
		if (i > 990) [[unlikely]]
			s ^= 1;
	}
	printf("%ld\n", s);
	return 0;
}
C
cat > lib.cc <<'C'
#include "hint.h"
extern "C" long lib_run(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += pick(i, i);
	return s;
}
C
cat > dl.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	for (int k = 0; k < 2; k++) {
		void *h = dlopen(argv[1], RTLD_NOW);
		long (*run)(int);

		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		run = (long (*)(int))dlsym(h, "lib_run");
		printf("%ld\n", run(100));
		dlclose(h);
	}
	return 0;
}
C
gcc -o dl dl.c -ldl || fail "cannot build the loader"
compilers=(g++)
for c in clang++-22 clang++; do
	command -v $c > /dev/null && { compilers+=($c); break; }
done
for c in "${compilers[@]}"; do
	"$c" -std=c++20 -O2 $("$LC" cflags) -o "p-$c" a.cc b.cc || fail "$c: cannot build the program"
	"$c" -std=c++20 -O2 -o "plain-$c" a.cc b.cc || fail "$c: cannot build the plain program"
	run_ok "plain-$c.out" "./plain-$c"
	run_ok "p-$c.out" "$LC" run --dir "o-$c" -- "./p-$c"
	expect_same "plain-$c.out" "p-$c.out" "$c: the counted program's output"
	run_ok "r-$c" "$LC" report o-$c/likely-check.*
	# each site once, every run of both files and both instances counted
	expect_grep '^ +1800 +200 +10\.00 +pick +(\./)?hint\.h:4 ' "r-$c" "$c: the template's site"
	expect_grep '^ +1000 +1000 +50\.00 +odd +(\./)?hint\.h:10 ' "r-$c" "$c: the inline function's site"
	[[ $(grep -c 'hint\.h:4 ' "r-$c") == 1 ]] || fail "$c: the template's site is listed more than once"
	expect_no_grep 'b\.cc:9' "r-$c" "$c: [[unlikely]] is no __builtin_expect"
	# a library whose only hints are in a template, loaded and unloaded twice
	"$c" -std=c++20 -O2 -fPIC -shared $("$LC" cflags) -o "lib-$c.so" lib.cc || fail "$c: cannot build the library"
	run_ok "d-$c.out" "$LC" run --dir "d-$c" -- ./dl "$PWD/lib-$c.so"
	run_ok "rd-$c" "$LC" report d-$c/likely-check.*
	expect_grep '^ +180 +20 +10\.00 +pick +(\./)?hint\.h:4 ' "rd-$c" "$c: the library's site, over two loads"
done
