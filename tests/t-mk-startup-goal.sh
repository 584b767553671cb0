#!/bin/bash
# mk/startup.mk included at the top of a Makefile leaves the project's
# first target the default goal: a plain make builds the project (before,
# the fragment's first rule, the default link prog.default, became the
# goal), and a configuration the fragment cannot use stops only its own
# targets.
. "$(dirname "$0")/lib.sh"
need gcc make
printf 'int main(void)\n{\n\treturn 0;\n}\n' > main.c
cat > Makefile <<EOF2
STARTUP_PROG = prog
STARTUP_INPUTS = main.o
STARTUP_RUN = \$(STARTUP_PROGRAM)
STARTUP_DSOS = nolib
include $TOP/mk/startup.mk
all: prog
prog: main.o
	\$(CC) -o \$@ main.o
EOF2
make -s > make.out 2>&1 || fail "make: $(tail -5 make.out)"
[[ -x prog ]] || fail "make did not build prog"
[[ ! -e .linkopt ]] || fail "make ran the fragment's rules"
status=0
make -s startup > startup.out 2>&1 || status=$?
((status != 0)) || fail "make startup accepted STARTUP_DSOS = nolib without STARTUP_DSO_nolib"
expect_grep ': \*\*\* mk/startup\.mk: STARTUP_DSO_nolib is empty: name the library nolib.s link writes.  Stop\.$' \
	startup.out "a library without its variables"
exit 0
