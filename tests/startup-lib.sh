# Helpers for the mk/startup.mk tests (sourced after lib.sh and pagein-lib.sh).

# startup_project: writes and compiles, in the current folder, a small
# project that includes mk/startup.mk: prog from main.o and libwork.a, 40
# functions of about 1.5 KiB each in their own sections, of which start-up
# runs 6 scattered ones; prog prints its arguments after a checksum.  The
# Makefile sets STARTUP_RUN from $STARTUP_RUN_LINE (default:
# $(STARTUP_PROGRAM)) and takes the rest from the command line.
startup_project() {
	local i j
	{
		echo '#include <stdio.h>'
		for i in $(seq 0 39); do
			printf '__attribute__((noinline)) int w%d(int x)\n{\n\tvolatile int a[32];\n' "$i"
			printf '\tfor (int k = 0; k < 32; k++)\n\t\ta[k] = x * %d + k;\n' "$((i + 3))"
			for j in $(seq 1 40); do printf '\tx = x * %d + a[%d];\n' "$((j % 7 + 2))" "$((j % 32))"; done
			printf '\treturn x;\n}\n'
		done
	} > work.c
	cat > main.c <<'EOF2'
#include <stdio.h>
int w3(int), w11(int), w19(int), w27(int), w35(int), w38(int);
static __attribute__((noinline)) int error(int x) { return x * 5 + 1; }
int main(int argc, char **argv)
{
	int s = w3(1) + w11(2) + w19(3) + w27(4) + w35(5) + w38(6) + error(argc);
	printf("%d", s);
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	return 0;
}
EOF2
	gcc -O2 -g -ffunction-sections -fdata-sections -c work.c main.c || fail "cannot compile the project"
	rm -f libwork.a && ar rcs libwork.a work.o || fail "ar"
	cat > Makefile <<EOF2
LINKOPT = $TOP
STARTUP_PROG = prog
STARTUP_INPUTS = main.o libwork.a
STARTUP_RUN = ${STARTUP_RUN_LINE:-\$(STARTUP_PROGRAM)}
include \$(LINKOPT)/mk/startup.mk
EOF2
}
