#!/bin/bash
# linkopt-startup's refusals, each with exit status 1 and a message that
# says what to do, and a whole, working output left behind: an output
# never recorded, a workload that fails, one that never loads the output,
# one that prints something else once ordered (--report), and an ordered
# link that fails; then a script workload (--trace-children) that runs the
# program twice, of which only the traces holding the output are used;
# and --placement=cold-start, whose order is deporder's cold-start
# placement for the --read-ahead-kb given, kept by later links.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

for i in $(seq 0 19); do
	printf 'int f%d(int x)\n{\n\tvolatile int a[32];\n\tfor (int k = 0; k < 32; k++)\n\t\ta[k] = x + k;\n' "$i"
	for j in $(seq 1 80); do printf '\tx = x * %d + a[%d];\n' $((j % 5 + 2)) $(((j + i) % 32)); done
	printf '\treturn x;\n}\n'
done > lib.c
echo 'int work(int x) { return f2(x) + f11(x) + f19(x); }' >> lib.c
printf '#include <stdio.h>\nint work(int);\nint main(int c, char **v) { (void)v; printf("%%d\\n", work(c) & 255); return 0; }\n' > main.c
"${cc[@]}" -O1 -fPIC -c lib.c && "${cc[@]}" -O1 -c main.c || fail "compile"
"${cc[@]}" -shared -o libwork.so lib.o && "${cc[@]}" -o prog main.o -L. -lwork -Wl,-rpath,"$PWD" || fail "link"
./prog > want.out || fail "the program fails"

# refuse STATUS PATTERN ARGS...: linkopt-startup ARGS... exits STATUS with PATTERN on stderr
refuse() {
	local want=$1 pattern=$2 status=0
	shift 2
	timeout -k 5 300 "$LINKOPT_STARTUP" "$@" > out 2> err < /dev/null || status=$?
	((status == want)) || fail "linkopt-startup $*: exit status $status, not $want: $(tail -3 err)"
	expect_grep "$pattern" err
}
# whole_output: prog still runs as before, and no order is kept for it
whole_output() {
	./prog > got.out 2>&1 || fail "the program left behind fails: $(cat got.out)"
	expect_same want.out got.out "the output of the program left behind"
	[[ ! -e $dir/libwork.so.apply ]] || fail "an order is kept after a failed run"
	ls *.linkopt-tmp 2> /dev/null && fail "a temporary link was left behind"
	return 0
}

refuse 2 'no --target given' --dir="$dir" -- ./prog
refuse 1 "no link of 'nothing' recorded: build it through linkopt-cc first" --dir="$dir" --target=nothing -- ./prog
refuse 1 'the workload failed under pagein \(exit status 3\)' --dir="$dir" --target=libwork.so -- sh -c 'exit 3'
whole_output
refuse 1 'libwork.so: the workload did not run .*/libwork.so .build-id [0-9a-f]*.; a script or launcher needs --trace-children' \
	--dir="$dir" --target=libwork.so -- sh -c './prog > /dev/null'
whole_output
refuse 1 'the workload printed other output with the ordered link' \
	--dir="$dir" --target=libwork.so --trace-children --report -- sh -c './prog; date +%N'
[[ -e $dir/libwork.so.apply ]] || fail "the order made before the report was not kept"
rm "$dir/libwork.so.apply"
# a linker that cannot link with an order is refused before anything runs
if ! command -v ld.mold > /dev/null; then
	refuse 1 '--linker=mold: cannot run ld.mold --help: is mold installed' --dir="$dir" --target=libwork.so --linker=mold -- ./prog
	whole_output
elif ! ld.mold --help | grep -q -- --symbol-ordering-file; then
	refuse 1 '--linker=mold: ld.mold \(mold [0-9.]+.*\) has no --symbol-ordering-file option, so it cannot link with an order' \
		--dir="$dir" --target=libwork.so --linker=mold -- ./prog
	whole_output
fi

# the program twice from a script: the shell's own traces are left out
"$LINKOPT_STARTUP" --dir="$dir" --target=libwork.so --target=prog --trace-children --report \
	-- sh -c './prog; ./prog 1' > report 2> err || fail "linkopt-startup with a script workload: $(tail -3 err)"
expect_fewer report libwork.so
ls "$dir/libwork.so.traces" | wc -l > traces
(($(cat traces) >= 3)) || fail "--trace-children wrote $(cat traces) traces, not one per process"
expect_output want.out got.out "the ordered program's output" ./prog
nm libwork.so | grep -q __linkopt_hot_start || fail "libwork.so is not ordered"

refuse 2 "--placement: 'tail'" --dir="$dir" --target=libwork.so --placement=tail -- ./prog
refuse 2 '--read-ahead-kb: .*not a number of KiB' --dir="$dir" --target=libwork.so --read-ahead-kb=12x -- ./prog
"$LINKOPT_STARTUP" --dir="$dir" --target=libwork.so --placement=cold-start --read-ahead-kb=64 -- ./prog > out 2> err ||
	fail "linkopt-startup --placement=cold-start: $(tail -3 err)"
order=$dir/libwork.so.gnu-ld.cold-start.order
[[ -s $order ]] || fail "no $order: $(ls "$dir")"
head -n 1 "$order" | grep -q 'placement cold-start at 64 KiB' || fail "the order is not deporder's cold-start placement for 64 KiB: $(head -c 300 "$order")"
head -n 1 "$dir/libwork.so.gnu-ld.order" | grep -q 'placement cold-start' && fail "the head order was overwritten"
expect_output want.out got.out "the output of the program with the cold-start order" ./prog
cp libwork.so cold.so
"${cc[@]}" -shared -o libwork.so lib.o || fail "a later link"
cmp -s libwork.so cold.so || fail "a later link of libwork.so dropped the cold-start order"
exit 0
