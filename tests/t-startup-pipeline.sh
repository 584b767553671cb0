#!/bin/bash
# linkopt-startup, the one start-up pipeline: the same workload and link
# give "(unchanged)" and touch nothing, another workload or layout orders
# again (a changed run used to keep the old order); every run of the
# workload reads all of its standard input; --placement=data-first
# with --relr and --bolt rewrites the ordered link with linkopt-bolt,
# checked natively, and a later link of the same bytes through linkopt-cc
# gets the rewrite back (of other bytes: the order only, with a warning);
# a check that prints something else with the ordered output puts the
# plain link back and keeps no order; a file in place of another kind
# than the recorded link (static, the record a PIE) is refused, untouched;
# --undo puts the plain link back and removes the records.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_buildsys
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

startup_functions w 150 > work.c
cat > main.c <<'EOF2'
#include <stdio.h>
int w3(int), w11(int), w19(int), w27(int), w35(int), w38(int);
int main(int argc, char **argv)
{
	int s = w3(1) + w11(2) + w19(3) + w27(4) + w35(5) + w38(6);

	(void)argv;
	if (argc > 1)
		s += w11(argc) + w20(argc);
	printf("%d\n", s);
	return 0;
}
EOF2
sed -i 's/int w3(int), /int w20(int), w3(int), /' main.c
"${cc[@]}" -O2 -c work.c main.c || fail "compile"
"${cc[@]}" -o prog main.o work.o || fail "link"
run_ok want.out ./prog
cp prog plain

# startup ARGS...: linkopt-startup ARGS..., stdout in out, stderr in err
startup() {
	run_status out "$LINKOPT_STARTUP" --dir="$dir" --target=prog "$@"
	mv out.err err
}

startup -- ./prog
((RUN_STATUS == 0)) || fail "linkopt-startup: $(cat err)"
expect_grep '^prog: ordered for gnu-ld, start-up code pages [0-9]+ -> [0-9]+$' out
stamp=$(stat -c %.9Y prog)
startup -- ./prog
((RUN_STATUS == 0)) || fail "linkopt-startup again: $(cat err)"
expect_grep '^prog: ordered for gnu-ld, start-up code pages [0-9]+ -> [0-9]+ \(unchanged\)$' out
[[ $(stat -c %.9Y prog) == "$stamp" ]] || fail "an unchanged order touched prog"
startup -- ./prog 1
((RUN_STATUS == 0)) || fail "linkopt-startup with another run: $(cat err)"
expect_no_grep 'unchanged' out "another run"
grep -q '^[0-9]* 0x[0-9a-f]* F .* w20 ' rec/prog.trace || grep -q ' w20 (in ' rec/prog.trace ||
	fail "the other run was not traced: w20 is not in rec/prog.trace"
expect_output want.out got.out "the program ordered for another run" ./prog

# every run reads all of standard input, a file or a pipe (the runs
# after the first read end-of-file, and their figures were of another run)
cat > lines.c <<'EOF2'
#include <stdio.h>
int main(void)
{
	char line[256];
	int n = 0;

	while (fgets(line, sizeof(line), stdin))
		n++;
	printf("%d lines\n", n);
	return 0;
}
EOF2
"${cc[@]}" -O1 -c lines.c && "${cc[@]}" -o lines lines.o || fail "lines"
seq 1000 > input.txt
run_status out "$LINKOPT_STARTUP" --dir="$dir" --target=lines --report -- ./lines < input.txt
((RUN_STATUS == 0)) || fail "a workload that reads a file on stdin: $(cat out.err)"
for f in rec/lines.out rec/lines.after.out; do
	grep -qx '1000 lines' "$f" || fail "stdin from a file: $f holds $(cat "$f")"
done
status=0
seq 1000 | "$LINKOPT_STARTUP" --dir="$dir" --target=lines --report -- ./lines > out 2> err || status=$?
((status == 0)) || fail "a workload that reads a pipe on stdin: $(cat err)"
for f in rec/lines.out rec/lines.after.out; do
	grep -qx '1000 lines' "$f" || fail "stdin from a pipe: $f holds $(cat "$f")"
done
rm -f rec/lines.*

# data-first, relr, BOLT (16: BOLT 22 may break a relr link's .dynamic)
if command -v llvm-bolt-16 > /dev/null; then
	startup --placement=data-first --relr --bolt --llvm-bolt=llvm-bolt-16 -- ./prog
	((RUN_STATUS == 0)) || fail "linkopt-startup --bolt: $(cat err)"
	expect_grep '^prog: ordered for gnu-ld/data-first\+relr\+bolt \(llvm-bolt-16\), start-up code pages' out
	expect_output want.out got.out "the program rewritten by BOLT" ./prog
	readelf -d prog | grep -q '(RELR)' || fail "prog is not a relr link"
	readelf -SW prog | grep -q '\.bolt\.org\.text\|\.text\.cold' || readelf -n prog | grep -q 'BOLT' ||
		cmp -s prog rec/prog.bolt || fail "prog is not BOLT's rewrite"
	cmp -s prog rec/prog.bolt || fail "prog is not rec/prog.bolt"
	[[ -s rec/prog.rewrite ]] || fail "no rewrite record"
	# a later link of the same bytes gets the rewrite; of other bytes, not
	"${cc[@]}" -o prog main.o work.o 2> later.err || fail "a later link: $(cat later.err)"
	cmp -s prog rec/prog.bolt || fail "a later link of the same bytes lost the rewrite"
	expect_empty later.err "the later link's warnings"
	"${cc[@]}" -O1 -c main.c || fail "compile main.c again, otherwise"
	"${cc[@]}" -o prog main.o work.o 2> later.err || fail "a later link of other bytes: $(cat later.err)"
	expect_grep 'linked with its order, but not the link linkopt-startup rewrote' later.err "the other link"
	cmp -s prog rec/prog.bolt && fail "a link of other bytes got the rewrite"
	expect_output want.out got.out "the program linked again with other bytes" ./prog
	"${cc[@]}" -O2 -c main.c && "${cc[@]}" -o prog main.o work.o || fail "link back"
else
	echo "the --bolt case: no llvm-bolt-16 (apt-get install bolt-16)"
fi

# a check that prints something else once ordered: the plain link goes back
cat > differs.sh <<'EOF2'
if cmp -s prog rec/prog.default; then echo plain; else echo ordered; fi
EOF2
rm -f rec/prog.apply
startup --check='sh differs.sh' -- ./prog
((RUN_STATUS == 1)) || fail "a check that differs: exit status $RUN_STATUS: $(cat err)"
expect_grep '^linkopt-startup: the check printed something else with the ordered outputs .*: the plain outputs are back in place' err
cmp -s prog rec/prog.default || fail "the plain link is not back in place"
[[ ! -e rec/prog.apply ]] || fail "an order is kept after a check that differs"

# a static program in place, a record of a PIE: refused, untouched
gcc -static -o prog main.o work.o || fail "the static link"
cp prog static
startup -- ./prog
((RUN_STATUS == 1)) || fail "a static program in place: exit status $RUN_STATUS"
expect_grep "^linkopt-startup: prog: .*/prog is a static program, but its recorded link makes a PIE" err
cmp -s prog static || fail "the static program was replaced"

# --undo: the plain link back, no records left
"${cc[@]}" -o prog main.o work.o || fail "link"
startup -- ./prog
((RUN_STATUS == 0)) || fail "linkopt-startup: $(cat err)"
nm prog | grep -q __linkopt_hot_start || fail "prog is not ordered"
startup --undo -- true
((RUN_STATUS == 0)) || fail "linkopt-startup --undo: $(cat err)"
expect_grep '^prog: the plain link is back$' out
nm prog | grep -q __linkopt_hot_start && fail "--undo left the ordered prog"
[[ -z $(ls -A rec) ]] || fail "--undo left $(ls -A rec)"
expect_output want.out got.out "the program after --undo" ./prog
exit 0
