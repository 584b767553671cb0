#!/bin/bash
# mk/pgo.mk included at the top of a Makefile whose flags default with
# CFLAGS ?= -O3 (lz4's way): a plain `make` is the project's own -O3 build,
# and `make pgo` gives a PGO build that is -O3 too (before, the fragment's
# own CFLAGS assignment made every build -O0).  A plain `pgo-run status`
# then shows the profile `make pgo` made.
. "$(dirname "$0")/lib.sh"
need gcc make readelf
mkdir p && cd p
cat > prog.c <<'EOF2'
#include <stdio.h>
int main(int argc, char **argv) { long s = 0; for (long i = 0; i < 100000L * argc; i++) s += i % 7; printf("%ld\n", s); return 0; }
EOF2
cat > Makefile <<EOF2
include $TOP/mk/pgo.mk
CFLAGS ?= -O3
prog: prog.o
	\$(CC) \$(CFLAGS) -o \$@ prog.o
clean:
	rm -f prog prog.o
EOF2
printf '#!/bin/sh\n./prog a b > /dev/null\n' > train.sh && chmod +x train.sh
make -s CFLAGS='-O3 -frecord-gcc-switches' > /dev/null || fail "the plain make failed"
readelf -p .GCC.command.line prog.o | grep -q -- '-O3' || fail "the plain build is not -O3"
make -s clean
make pgo LINKOPT="$TOP" PGO_WORKLOADS=./train.sh > ../pgo.out 2>&1 || fail "make pgo failed: $(tail -5 ../pgo.out)"
[[ -x prog ]] || fail "make pgo left no program"
readelf -p .GCC.command.line prog.o > ../switches || fail "no recorded options in the PGO build's object"
grep -q -- '-O3' ../switches || fail "the PGO build is not -O3: $(cat ../switches)"
grep -q -- '-fprofile-use' ../switches || fail "the PGO build did not use the profile: $(cat ../switches)"
# pgo-run status, as the man page gives it, looks at the profile make pgo
# made (its build command was 'make ', with a blank: another configuration,
# and status said "profile: none")
status=0
"$TOP/pgo-run/pgo-run" status > ../status 2> ../status.err < /dev/null || status=$?
((status == 0)) || fail "pgo-run status after make pgo: exit status $status: $(cat ../status)"
expect_grep '^  build: make$' ../status
expect_grep '^profile: ' ../status
expect_no_grep '^profile: none$' ../status
# Without workloads: a clear usage error.
status=0; make -s pgo LINKOPT="$TOP" > /dev/null 2> ../err || status=$?
((status != 0)) || fail "make pgo without PGO_WORKLOADS succeeded"
expect_grep 'set PGO_WORKLOADS' ../err
exit 0
