#!/bin/bash
# linkopt-cc's records stay true: two outputs of one name in two folders
# no longer share one record (the second replaced the first, silently): the
# second is recorded under its path, said in a warning, and linkopt-startup
# takes it by that name or by its path; a link that fails is not recorded
# (it was, and linkopt-startup then ordered a link that never worked); a
# later link with an order whose inputs changed since says how many did
# (it said nothing while the order matched less and less), the objects of a
# link through a response file (CMake with Ninja) counted with the others
# (they were left out: no input recorded, the warning never came).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

mkdir a b
printf '#include <stdio.h>\nint main(void) { puts("a"); return 0; }\n' > a/main.c
printf '#include <stdio.h>\nint main(void) { puts("b"); return 0; }\n' > b/main.c
(cd a && "${cc[@]}" -O1 -c main.c && "${cc[@]}" -o test main.o) || fail "a/test"
(cd b && "${cc[@]}" -O1 -c main.c && "${cc[@]}" -o test main.o 2> ../b.err) || fail "b/test"
mangled=$(printf '%s/b/test' "${PWD#/}" | tr / +)
grep -qF "linkopt-cc: warning: $PWD/b/test: two outputs named test ($PWD/a/test is recorded as test): this one is recorded as $mangled," b.err ||
	fail "the warning for the second output of the same name: $(cat b.err)"
tr '\0' '\n' < rec/test.link | sed -n 2p > first
echo "$PWD/a/test" > want
expect_same want first "the record of the first output"
[[ -f rec/$mangled.link ]] || fail "no record $mangled.link for b/test: $(ls rec)"
tr '\0' '\n' < "rec/$mangled.link" | sed -n 2p > second
echo "$PWD/b/test" > want
expect_same want second "the record of the second output"
# linkopt-startup takes the second by its path
run_status out "$LINKOPT_STARTUP" --dir="$dir" --target=b/test -- ./b/test
((RUN_STATUS == 0)) || fail "linkopt-startup --target=b/test: $(cat out.err)"
grep -qF "$mangled: ordered for gnu-ld" out || fail "the order of b/test: $(cat out)"
echo b > want
expect_output want got "b/test ordered" ./b/test
echo a > want
expect_output want got "a/test untouched" ./a/test
# an explicit --name that is another output's is refused
status=0
(cd b && "$LINKOPT_CC" --dir="$dir" --name=test gcc -o test main.o) 2> name.err || status=$?
((status == 1)) || fail "a --name of another output: exit status $status"
expect_grep "rec/test\\.link: records the link of $PWD/a/test, not of $PWD/b/test: give each output its own --name" name.err

# a link that fails is not recorded
printf 'int f(void);\nint main(void) { return f(); }\n' > bad.c
"${cc[@]}" -O1 -c bad.c || fail "bad.o"
status=0
"${cc[@]}" -o bad bad.o 2> bad.err || status=$?
((status == 1)) || fail "a failing link: exit status $status"
[[ ! -e rec/bad.link ]] || fail "a link that failed was recorded"

# inputs changed since the order: said
printf '#include <stdio.h>\nint g(int x) { return x * 3; }\nint main(int c, char **v) { (void)v; printf("%%d\\n", g(c)); return 0; }\n' > p.c
"${cc[@]}" -O1 -c p.c && "${cc[@]}" -o p p.o || fail "p"
run_status out "$LINKOPT_STARTUP" --dir="$dir" --target=p -- ./p
((RUN_STATUS == 0)) || fail "linkopt-startup --target=p: $(cat out.err)"
"${cc[@]}" -o p p.o 2> same.err || fail "a later link"
expect_empty same.err "a later link with the same inputs"
sleep 1
sed -i 's/x \* 3/x * 5/' p.c
"${cc[@]}" -O1 -c p.c && "${cc[@]}" -o p p.o 2> changed.err || fail "a later link of changed inputs"
expect_grep "^linkopt-cc: warning: p: 1 of the 1 files its link reads changed since its order was made" changed.err

# the same through a response file the build removes after the link
printf 'int g(int x) { return x * 3; }\n' > q1.c
printf '#include <stdio.h>\nint g(int);\nint main(int c, char **v) { (void)v; printf("%%d\\n", g(c)); return 0; }\n' > q2.c
"${cc[@]}" -O1 -c q1.c q2.c || fail "q1.o q2.o"
printf 'q1.o "q2.o"\n' > q.rsp
"${cc[@]}" -o q @q.rsp || fail "q through @q.rsp"
rm q.rsp
run_status out "$LINKOPT_STARTUP" --dir="$dir" --target=q -- ./q
((RUN_STATUS == 0)) || fail "linkopt-startup --target=q: $(cat out.err)"
[[ $(tr '\0' '\n' < rec/q.inputs | grep -c '^q[12]\.o$') == 2 ]] ||
	fail "the objects named in the response file are not among the recorded inputs: $(tr '\0' ' ' < rec/q.inputs)"
sleep 1
sed -i 's/x \* 3/x * 5/' q1.c
printf 'q1.o q2.o\n' > q.rsp
"${cc[@]}" -O1 -c q1.c && "${cc[@]}" -o q @q.rsp 2> qchanged.err || fail "a later link of changed inputs through @q.rsp"
expect_grep "^linkopt-cc: warning: q: 1 of the 2 files its link reads changed since its order was made" qchanged.err
exit 0
