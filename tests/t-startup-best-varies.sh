#!/bin/bash
# linkopt-startup --placement=best on a program whose native runs differ
# from each other: every third one runs rare, 600 KiB away from the rest
# (Python does the like: its hash seed changes from run to run which .cold
# parts of dict and set code run, and one cold start in three or seven
# read a read-ahead window more).  The model replays the pages most of
# three native runs faulted in and the measurement is the median of three
# cold starts, so both are the usual run's: with one native run and one
# cold start each, a candidate's model and measurement differed by
# rare's window whenever one of the two was a third run (here, with the
# count starting at 1 or 2: VARIES_SEED, default 1; it passes with any).
# Root only (the measurement needs a loop device).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_buildsys
((EUID == 0)) || skip "a cold start is measured on a loop device: root only"
need_faults_recordable
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

startup_functions w 40 > work.c
startup_far rare
cat > main.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int w3(int), w11(int), w19(int), w27(int), w35(int), w38(int), rare(int);
int main(int argc, char **argv)
{
	int s = w3(1) + w11(2) + w19(3) + w27(4) + w35(5) + w38(6);
	const char *preload = getenv("LD_PRELOAD");
	long runs = 0;
	FILE *f;

	/* natively (not under valgrind), every third run of all */
	if (argc > 1 && !(preload && strstr(preload, "vgpreload"))) {
		if ((f = fopen(argv[1], "r"))) {
			if (fscanf(f, "%ld", &runs) != 1)
				runs = 0;
			fclose(f);
		}
		if ((f = fopen(argv[1], "w"))) {
			fprintf(f, "%ld\n", runs + 1);
			fclose(f);
		}
		if (runs % 3 == 2)
			s += rare(argc) - rare(argc);
	}
	printf("%d\n", s);
	return 0;
}
EOF2
"${cc[@]}" -O2 -ffunction-sections -fdata-sections -c work.c main.c || fail "compile"
"${cc[@]}" -o prog main.o work.o || fail "link"
run_ok want.out ./prog

echo "${VARIES_SEED:-1}" > runs
# the search's arguments (again, from the plain link: startup_model_agrees)
search=(--dir="$dir" --target=prog --placement=best --no-bolt --no-relr --no-segments --measure-all -- ./prog "$PWD/runs")
run_ok best.out "$LINKOPT_STARTUP" "${search[@]}"
cat best.out
(($(cat runs) > 6)) || fail "prog counted $(cat runs) native runs"
again() {
	"$LINKOPT_STARTUP" --dir="$dir" --target=prog --undo -- true && "${cc[@]}" -o prog main.o work.o &&
		"$LINKOPT_STARTUP" "${search[@]}" 2>&1
}
startup_model_agrees best.out again
expect_grep 'the median of 3 cold starts' best.out
run_ok got.out ./prog
expect_same want.out got.out "the chosen layout's output"
exit 0
