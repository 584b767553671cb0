#!/bin/bash
# mk/pgo.mk and mk/startup.mk together: one make startup-pgo, from a clean
# build folder (make -f SRC/Makefile), runs pgo-run's cycle on the
# project's own build, then orders the program and the library from the
# objects the optimized build made (each records -fprofile-use): the
# ordered links are PGO-built, prog prints the same, make startup-check
# passes.  A PGO_TARGET that leaves an input for make startup to rebuild
# without the profile is refused, and so is make startup inside pgo-run's
# build (it would order an instrumented program).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make readelf gcov-tool

startup_dso_project src
echo "include \$(LINKOPT)/mk/pgo.mk" >> src/Makefile
mkdir b && cd b
make -s -f ../src/Makefile > plain.out 2>&1 || fail "the plain build: $(tail -5 plain.out)"
run_ok want.out ./prog all
make -s -f ../src/Makefile clean

make -j2 -f ../src/Makefile startup-pgo PGO_WORKLOADS="'./prog all'" > pgo.out 2>&1 ||
	fail "make startup-pgo: $(tail -15 pgo.out)"
recorded() { readelf -p .GCC.command.line "$1" 2> /dev/null; }
for f in obj/main.o obj/prog.o obj/work.o .linkopt/prog.default .linkopt/libwork.so.default prog libwork.so; do
	recorded "$f" | grep -q -- '-fprofile-use' || fail "$f was not built with the profile: $(recorded "$f" | head -5)"
	recorded "$f" | grep -q -- '-fprofile-generate' && fail "$f holds instrumented code"
done
for f in prog libwork.so; do
	[[ $(readelf -n "$f" | sed -n 's/^ *Build ID: //p') == $(tr '\0' '\n' < ".linkopt/$f.state" | sed -n 's/^ordered-build-id=//p') ]] ||
		fail "$f is not the ordered link its state names"
	nm "$f" | grep -q __linkopt_hot_start || fail "$f is not linked with GNU ld's script"
done
expect_output want.out got.out "the PGO-built, ordered prog's output" ./prog all
make -s -f ../src/Makefile startup-check > check.out 2>&1 || fail "make startup-check: $(tail -5 check.out)"

# PGO_TARGET builds the library alone: prog's objects would be built by
# make startup, without the profile.
make -s -f ../src/Makefile clean
printf 'int w3(int);\nint main(void)\n{\n\treturn w3(1) == 1;\n}\n' > t.c
printf 'gcc -o t t.c libwork.so -Wl,-rpath,"$PWD" && ./t\n' > train.sh
status=0
make -f ../src/Makefile startup-pgo PGO_TARGET=libwork.so PGO_WORKLOADS=train.sh > pgo2.out 2>&1 || status=$?
((status != 0)) || fail "make startup-pgo with PGO_TARGET=libwork.so succeeded"
expect_grep '^mk/startup\.mk: make pgo left inputs of the ordered links out of date \(make would rebuild them without the profile\): PGO_TARGET must build all of ' \
	pgo2.out "an input left to make startup"

# Objects that record their options, without the profile: refused.
make -s -f ../src/Makefile clean
status=0
make -s -f ../src/Makefile startup STARTUP_PGO=yes CFLAGS='-O2 -fPIC -ffunction-sections -frecord-gcc-switches' \
	> plain-pgo.out 2>&1 || status=$?
((status != 0)) || fail "make startup STARTUP_PGO=yes accepted objects built without the profile"
expect_grep "^linkopt-startup: (prog|libwork\.so): inputs not built by pgo-run's optimized build \(no -fprofile-use among the options they record\): obj/" \
	plain-pgo.out "objects without the profile"

# make startup in pgo-run's build
status=0
PGO_RUN_CFLAGS=-fprofile-generate make -s -f ../src/Makefile startup > in-pgo.out 2>&1 || status=$?
((status != 0)) || fail "make startup ran inside a pgo-run build"
expect_grep 'inside a pgo-run build would trace and order an instrumented build' in-pgo.out
exit 0
