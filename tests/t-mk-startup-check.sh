#!/bin/bash
# make startup-check (linkopt-startup --verify) fails, saying why, when an
# order has gone stale or the start-up's pages grew back, and passes
# otherwise:
#  - the project's own rules relinked the library (without the order);
#  - a source changed and make has not rebuilt its object yet;
#  - an input was rebuilt from a changed source: deporder refuses the
#    order's trace (too little of it matches), or makes another order;
#  - the run touches more code than when the order was made (beyond
#    STARTUP_CHECK_TOLERANCE);
#  - the output was ordered for another linker, or not at all.
# make startup refuses to replace an output that is a symbolic link.
# And make startup refuses a host that loads another copy of the library
# (a DT_RPATH naming another folder): the trace would not be of it.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make readelf

startup_dso_project src
mkdir b && cd b

# check [ARGS...]: make startup-check, output in check.out, status in $status
check() {
	status=0
	make -s -f ../src/Makefile -k startup-check "$@" > check.out 2>&1 || status=$?
}
startup() {
	make -s -f ../src/Makefile startup "$@" > startup.out 2>&1 || fail "make startup $*: $(tail -5 startup.out)"
}
# change_function FILE NAME: NAME's body in FILE grows by two statements
change_function() {
	python3 - "$@" <<'EOF2' || fail "cannot change $2 in $1"
import sys
path, name = sys.argv[1], sys.argv[2]
s = open(path).read()
i = s.index('int %s(int x)' % name)
j = s.index('return x;', i)
open(path, 'w').write(s[:j] + 'x ^= a[5] * 77;\n\tx += a[9] * 13;\n\t' + s[j:])
EOF2
}
need python3

check
((status != 0)) || fail "startup-check passed before make startup"
expect_grep "^linkopt-startup: prog: not ordered \\(no .*/\\.linkopt/prog\\.state\\): run make startup$" check.out

startup
check
((status == 0)) || fail "startup-check right after make startup: $(cat check.out)"
# (4: three of the code the run ran, one of linkopt-prefetch.o's, apart)
expect_grep '^prog: start-up code pages 4, 4 when ordered, [0-9]+ before: ok$' check.out
expect_grep '^libwork\.so: start-up code pages 4, 4 when ordered, [0-9]+ before: ok$' check.out

# The project relinks the library (and so prog): both stale.
touch ../src/work.c
make -s -f ../src/Makefile > make.out 2>&1 || fail "make: $(tail -5 make.out)"
check
((status != 0)) || fail "startup-check passed after the project relinked libwork.so"
expect_grep "^linkopt-startup: libwork\\.so: stale: .*/libwork\\.so was relinked since it was ordered \\(ordered build-id [0-9a-f]+\\): run make startup$" \
	check.out "a relinked library"
expect_grep "^linkopt-startup: prog: stale: .*/prog was relinked since it was ordered" check.out "a relinked program"

# A source changed, its object not rebuilt yet: the check says so.
startup
touch ../src/prog.c
check
((status != 0)) || fail "startup-check passed with a source newer than its object"
expect_grep "^mk/startup\\.mk: prog: an input is out of date \\(make would rebuild it\\): run make, then make startup$" \
	check.out "a changed source"
make -s -f ../src/Makefile > make.out 2>&1 || fail "make: $(tail -5 make.out)"

# A hot function of the library changes and its object is rebuilt: the
# trace no longer matches the inputs enough for deporder.
startup
change_function ../src/work.c w3
make -s -f ../src/Makefile obj/work.o || fail "make obj/work.o"
check
((status != 0)) || fail "startup-check passed with work.o rebuilt from a changed w3"
expect_grep "^  obj/work\\.o	\\.text\\.w3$" check.out "deporder's refusal"
expect_grep "^linkopt-startup: libwork\\.so: stale: deporder refuses the trace and the map the order was made from \\(above\\): run make startup$" \
	check.out "a changed library input"
expect_no_grep "^linkopt-startup: prog:" check.out "prog's order, unchanged"
# (but prog links libwork.so, which make would relink now)
expect_grep "^mk/startup\\.mk: prog: an input is out of date" check.out "prog's input libwork.so"

# A hot function of the program changes, a small part of a run that
# enters every function: deporder takes the trace, and the order it makes
# now is another one.
startup RUN_ARGS=all
change_function ../src/prog.c p20
make -s -f ../src/Makefile obj/prog.o || fail "make obj/prog.o"
check RUN_ARGS=all
((status != 0)) || fail "startup-check passed with prog.o rebuilt from a changed p20"
expect_grep "^linkopt-startup: prog: stale: the order made now from its trace, map and the inputs differs from .*/\\.linkopt/prog\\.gnu-ld\\.order \\(an input changed since it was made\\): run make startup$" \
	check.out "a changed program input"

# The run touches more than it did: the pages grew back, beyond the
# tolerance unless it is raised.
startup
check
((status == 0)) || fail "startup-check after make startup: $(cat check.out)"
check RUN_ARGS=all
((status != 0)) || fail "startup-check passed with a run that touches every function"
expect_grep "^linkopt-startup: libwork\\.so: start-up code pages grew back: [0-9]+ now, 4 when ordered \\(at most 5 pass, tolerance 5%\\): the run touches other code now: run make startup$" \
	check.out "pages grown back"
check RUN_ARGS=all STARTUP_CHECK_TOLERANCE=1000
((status == 0)) || fail "startup-check with STARTUP_CHECK_TOLERANCE=1000: $(cat check.out)"
check STARTUP_CHECK_TOLERANCE=5x
((status != 0)) || fail "startup-check passed with STARTUP_CHECK_TOLERANCE=5x"
expect_grep 'STARTUP_CHECK_TOLERANCE = 5x: not a whole number of percent' check.out

# Another linker than the order's
check STARTUP_LINKER=gold
((status != 0)) || fail "startup-check STARTUP_LINKER=gold passed on a GNU ld order"
expect_grep "^linkopt-startup: libwork\\.so: ordered for gnu-ld, not gold: run make startup$" \
	check.out "another linker"

# An output that is a symbolic link (the project's libwork.so.1): it
# stays, and the order is refused.
status=0
make -s -f ../src/Makefile startup STARTUP_DSO_work=libwork.so.1 > link.out 2>&1 || status=$?
((status != 0)) || fail "make startup replaced the symbolic link libwork.so.1"
expect_grep "^linkopt-startup: .*/libwork\\.so\\.1: is a symbolic link: name the file the link writes" link.out
[[ -L libwork.so.1 && $(readlink libwork.so.1) == libwork.so ]] || fail "libwork.so.1 is no longer the link to libwork.so"

# A host whose DT_RPATH names another copy of the library: refused.
cd .. && mkdir r && cd r
mkdir stale && gcc -O0 -fPIC -shared -Wl,-soname,libwork.so.1 -o stale/libwork.so.1 ../src/work.c || fail "stale copy"
status=0
make -s -f ../src/Makefile startup HOST_LDFLAGS="-Wl,--disable-new-dtags -Wl,-rpath,$PWD/stale" > startup.out 2>&1 ||
	status=$?
((status != 0)) || fail "make startup accepted a host that loads another libwork.so.1"
expect_grep "^linkopt-startup: libwork\\.so: the workload did not run $PWD/libwork\\.so \\(build-id [0-9a-f]+\\)" \
	startup.out "a host with DT_RPATH"
[[ ! -e .linkopt/libwork.so.state ]] || fail "a state was written for the refused order"
exit 0
