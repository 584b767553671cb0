#!/bin/bash
# linkopt-cc, the compiler wrapper: compiles get function and data
# sections; each link of a program or shared library is recorded in its
# folder (response files copied, since ninja removes them), autoconf's
# conftest links and compile-and-link checks are not; an order applies
# only to the output it was made for; a link that fails with its order is
# linked again without it, with a warning.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

printf 'int f(void) { return 1; }\nint g(void) { return 2; }\n' > lib.c
printf 'int f(void);\nint main(void) { return f() - 1; }\n' > main.c
"${cc[@]}" -O2 -fPIC -c lib.c -o lib.o || fail "compile through linkopt-cc"
readelf -SW lib.o | grep -q ' \.text\.f ' || fail "linkopt-cc compiled without -ffunction-sections: $(readelf -SW lib.o | grep text)"
"$LINKOPT_CC" --dir="$dir" --no-sections gcc -O2 -c lib.c -o plain.o || fail "compile --no-sections"
readelf -SW plain.o | grep -q ' \.text\.f ' && fail "--no-sections still added -ffunction-sections"
"${cc[@]}" -O2 -c main.c -o main.o || fail "compile main.c"
[[ -e $dir ]] && fail "compiles made records: $(ls "$dir")"

# a shared library and a program, the program's objects in a response file
"${cc[@]}" -shared -o libf.so lib.o || fail "link libf.so"
echo main.o > objs.rsp
mkdir sub
"${cc[@]}" -o sub/prog @objs.rsp -L. -lf -Wl,-rpath,"$PWD" || fail "link prog"
rm objs.rsp
./sub/prog || fail "the program linked through linkopt-cc fails"
[[ -f $dir/libf.so.link && -f $dir/prog.link ]] || fail "no records: $(ls "$dir")"
tr '\0' '\n' < "$dir/prog.link" > prog.record
printf '%s\n' "linkopt link 1" "$PWD/sub/prog" "$PWD" gcc -o sub/prog "@$dir/prog.rsp.0" -L. -lf "-Wl,-rpath,$PWD" > want
expect_same want prog.record "the record of the program's link"
[[ $(cat "$dir/prog.rsp.0") == main.o ]] || fail "the response file was not kept"

# what is not recorded: autoconf's conftest, a compile-and-link, queries
"${cc[@]}" -o conftest main.o lib.o || fail "conftest link"
"${cc[@]}" -o both main.c lib.c || fail "compile-and-link"
"${cc[@]}" --version > /dev/null || fail "gcc --version through linkopt-cc"
"${cc[@]}" -r -o part.o main.o lib.o || fail "relocatable link"
ls "$dir" > recorded
printf '%s\n' libf.so.link prog.link prog.rsp.0 > want
expect_same want recorded "the records"

# an order applies to its own output only; a failing one is dropped
printf 'linkopt apply 1\n%s\0-Wl,--defsym=linkopt_applied=1\0' "$PWD/sub/prog" > "$dir/prog.apply"
"${cc[@]}" -o sub/prog main.o -L. -lf -Wl,-rpath,"$PWD" 2> err || fail "link with the order: $(cat err)"
nm sub/prog | grep -q ' linkopt_applied$' || fail "the order was not applied to its output"
expect_empty err
mkdir other
"${cc[@]}" -o other/prog main.o -L. -lf 2> err || fail "link of another prog: $(cat err)"
nm other/prog | grep -q linkopt_applied && fail "the order of sub/prog was applied to other/prog"
flat=${PWD#/}; flat=${flat//\//+}
grep -qF "warning: $PWD/other/prog: two outputs named prog ($PWD/sub/prog is recorded as prog): this one is recorded as $flat+other+prog," err ||
	fail "no warning that other/prog is recorded under its path: $(cat err)"
[[ -f $dir/$flat+other+prog.link ]] || fail "other/prog was not recorded under its path: $(ls "$dir")"
printf 'linkopt apply 1\n%s\0-Wl,--no-such-option\0' "$PWD/sub/prog" > "$dir/prog.apply"
"${cc[@]}" -o sub/prog main.o -L. -lf -Wl,-rpath,"$PWD" 2> err || fail "the link was not done again without the failing order"
expect_grep 'warning: prog: the link with the order of .* failed .*: linking again without it' err
./sub/prog || fail "the program linked again fails"

# usage
status=0
"$LINKOPT_CC" --dir=rel gcc -o x main.o lib.o 2> err || status=$?
((status == 2)) || fail "a relative --dir: exit status $status"
expect_grep "is not an absolute path" err
status=0
env -u LINKOPT_DIR "$LINKOPT_CC" gcc -o x main.o lib.o 2> err || status=$?
((status == 2)) || fail "no --dir: exit status $status"
LINKOPT_DIR=$PWD/env "$LINKOPT_CC" gcc -o x main.o lib.o || fail "LINKOPT_DIR"
[[ -f env/x.link ]] || fail "LINKOPT_DIR was not used"
exit 0
