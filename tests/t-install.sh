#!/bin/bash
# make install PREFIX=… DESTDIR=… puts everything under PREFIX and nothing
# elsewhere (the valgrind tool too: the pagein launcher finds it through
# VALGRIND_LIB, never in the system's valgrind folder), with a man page for
# every program and for the make fragments and pkg-config files.  The
# build tree is then removed and the README's flow runs from the installed
# copy alone: trace, order, relink (by hand and through the installed
# startup.mk), cygtrace through pkg-config, likely-check's flags, pgo-run's
# wrapper, linkopt-bolt's usage.
. "$(dirname "$0")/lib.sh"
need gcc pkg-config make tar valgrind

# a copy of the built tree, installed, then removed
install_copy
[[ $(ls "$PWD/dest") = opt ]] || fail "make install wrote outside PREFIX: $(ls "$PWD/dest")"
[[ -z $(find "$PWD/dest" -path "$P" -prune -o -type f -print) ]] || fail "files outside PREFIX: $(find "$PWD/dest" -path "$P" -prune -o -type f -print | head)"
for prog in deporder pagein pagein-report cygtrace-resolve likely-check pgo-run linkopt-bolt linkopt; do
	[[ -x $P/bin/$prog ]] || fail "$prog is not installed in PREFIX/bin"
	[[ -f $P/share/man/man1/$prog.1 ]] || fail "no man page for $prog"
	man -l "$P/share/man/man1/$prog.1" > /dev/null 2>&1 || [[ $prog = *-* ]] ||
		fail "man cannot read $prog.1"
done
[[ -f $P/share/man/man7/linkopt-mk.7 ]] || fail "no man page for the make fragments"
[[ -x $P/lib/linkopt/valgrind/pagein-amd64-linux ]] || fail "the valgrind tool is not under PREFIX/lib/linkopt/valgrind"
export PATH=$P/bin:/usr/bin:/bin PKG_CONFIG_PATH=$P/lib/pkgconfig
[[ $(pkg-config --variable=mkdir linkopt) -ef $P/share/linkopt/mk ]] || fail "pkg-config's mkdir: $(pkg-config --variable=mkdir linkopt)"

# the flow: trace, order, relink, with the installed tools only
cat > prog.c <<'EOF2'
#include <stdio.h>
#define F(n) __attribute__((noinline)) int f##n(int x) { volatile char pad[2000]; pad[0] = x; return pad[0] + n; }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9)
__attribute__((noinline)) int cold(int x) { static char big[20000]; big[x] = 1; return big[0]; }
int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 5)
		return cold(argc);
	printf("%d\n", f0(1) + f3(2) + f7(3) + f9(4));
	return 0;
}
EOF2
gcc -O1 -ffunction-sections -fdata-sections -c prog.c || fail "compile"
gcc -o prog.default prog.o -Wl,-Map=prog.map || fail "link"
pagein --granularity=function --output="$PWD/t.trace" -- ./prog.default > want.out 2> err || fail "installed pagein: $(head -3 err)"
deporder -q --trace t.trace --map prog.map --emit=gnu-ld --cc -- gcc -o prog prog.o > order.ld 2> err ||
	fail "installed deporder: $(head -3 err)"
gcc -o prog prog.o -Wl,-T,order.ld || fail "relink"
expect_output want.out got.out "the relinked program's output" ./prog
pagein --output="$PWD/after.trace" -- ./prog > /dev/null 2> err || fail "pagein on the relinked program"
pagein-report after.trace > report 2> err || fail "installed pagein-report: $(head -3 err)"

# startup.mk from the install, found by pkg-config, tools found from it
cat > Makefile <<EOF2
STARTUP_PROG = mkprog
STARTUP_INPUTS = prog.o
STARTUP_RUN = \$(STARTUP_PROGRAM)
include \$(shell pkg-config --variable=mkdir linkopt)/startup.mk
EOF2
make -s startup > mk.log 2>&1 || fail "make startup with the installed fragment: $(tail -5 mk.log)"
[[ -x mkprog && -s .linkopt/mkprog.gnu-ld.order ]] || fail "make startup made no ordered program"
expect_output want.out mk.out "the program startup.mk relinked" ./mkprog

# cygtrace through pkg-config; cygtrace-resolve from the install
gcc -O1 $(pkg-config --cflags linkopt-cygtrace) -o cyg prog.c $(pkg-config --libs linkopt-cygtrace) || fail "cygtrace link"
CYGTRACE_DIR=$PWD ./cyg > /dev/null || fail "the cygtrace program failed"
cyg=(cygtrace.*)
[[ -f ${cyg[0]} ]] || fail "the installed runtime wrote no trace"
cygtrace-resolve "${cyg[0]}" > resolved 2> err || fail "installed cygtrace-resolve: $(head -3 err)"
grep -q ' f7$' resolved || fail "cygtrace-resolve did not resolve f7: $(head -5 resolved)"

# likely-check's and pgo-run's support files are the installed ones
likely-check cflags | grep -q -- "$P/lib/linkopt/likely-check.h" || fail "likely-check cflags: $(likely-check cflags)"
[[ $(pkg-config --cflags linkopt-likely-check) == *"$P/lib/linkopt/likely-check.h"* ]] ||
	[[ $(pkg-config --cflags linkopt-likely-check) == *"lib/linkopt/likely-check.h"* ]] || fail "pkg-config linkopt-likely-check"
[[ -x $P/lib/linkopt/pgo-cc ]] || fail "pgo-run's compiler wrapper is not installed"
linkopt-bolt --help > /dev/null || fail "linkopt-bolt --help"
exit 0
