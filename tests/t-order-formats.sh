#!/bin/bash
# One trace model for both formats: the same program traced by cygtrace
# (first function entries) and by pagein --granularity=function (first
# touches of pages, functions and data objects) gives deporder the same hot
# input sections, in the same order, for the functions both saw; pagein's
# --evaluate line and cygtrace's absence of one (it records no pages) stay.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
CYG=$TOP/cygtrace
[[ -f $CYG/libcygtrace.so ]] || fail "cygtrace is not built"

# Functions entered in an order unlike their order in the file, a
# recursive one, a static one, one reached through a pointer, and one
# that the program refers to but never calls.
cat > prog.c <<'EOF2'
#include <stdio.h>
__attribute__((noinline)) int f0(int x) { return x + 1; }
__attribute__((noinline)) int f1(int x) { return x * 3; }
__attribute__((noinline)) int f2(int x) { return x <= 1 ? 1 : x * f2(x - 1); }
__attribute__((noinline)) static int f3(int x) { return x - 7; }
__attribute__((noinline)) int f4(int x) { return f3(x) + f0(x); }
__attribute__((noinline)) int f5(int x) { return x ^ 0x55; }
__attribute__((noinline)) int never(int x) { return x / 3; }
int (*volatile through)(int) = f5;
int (*volatile spare)(int) = never;
int main(void)
{
	int s = f4(1);

	s += f2(5);
	s += through(s);
	s += f1(s);
	printf("%d\n", s);
	return 0;
}
EOF2
gcc -O1 -ffunction-sections -finstrument-functions -c prog.c || fail "cannot compile prog.c"
link=(gcc -o prog prog.o -L"$CYG" -lcygtrace -Wl,-rpath,"$CYG")
"${link[@]}" -Wl,-Map=prog.map || fail "cannot link prog"
mkdir cyg
CYGTRACE_DIR=$PWD/cyg ./prog > native.out || fail "prog failed"
cygtrace=$(ls cyg/cygtrace.*)
CYGTRACE_DIR=$PWD/cyg "$PAGEIN" --granularity=function --output="$PWD/pagein.trace" -- ./prog > traced.out 2> /dev/null ||
	fail "pagein"
expect_same native.out traced.out "the output under pagein"

order() { # TRACE: the section order, the traced sections first
	"$DEPORDER" -q --granularity=section --page-size=0 --no-data --trace "$1" --map prog.map \
		--cc -- "${link[@]}" > "$1.order" 2> "$1.err" || fail "deporder --trace $1: $(head -3 "$1.err")"
	expect_grep "^deporder: $1: [0-9]+ records of $PWD/prog: [0-9]+ matched an input section of the link \\(100\\.0%\\)" \
		"$1.err" "the match report of $1"
}
order "$cygtrace"
order pagein.trace
# cygtrace's traced sections: as many leading lines as the code it traced
# (it has no data records, and --no-data adds none).
n=$(sed -n 's/.*the traced code: \([0-9]*\) sections.*/\1/p' "$cygtrace.err")
head -n "$n" "$cygtrace.order" | grep -P '^prog\.o\t' > cygtrace.hot
printf 'prog.o\t.text.%s\n' main f4 f3 f0 f2 f5 f1 > want
expect_same want cygtrace.hot "the functions cygtrace saw, in first-entry order"
# pagein's order, cut to those sections: the same order; and all of them
# ahead of the function neither saw.
grep -xF -f cygtrace.hot pagein.trace.order > pagein.hot
expect_same cygtrace.hot pagein.hot "pagein's order of the functions cygtrace saw"
never=$(grep -nxP 'prog\.o\t\.text\.never' pagein.trace.order | cut -d: -f1)
last=$(grep -nxF -f cygtrace.hot pagein.trace.order | tail -1 | cut -d: -f1)
[[ -n $never && -n $last ]] && ((last < never)) ||
	fail "pagein's order puts the function no trace saw (line $never) among the traced ones (last at $last)"

# --evaluate: a line for the trace that records pages, none for the other.
"$DEPORDER" -q --granularity=section --evaluate --trace pagein.trace --trace "$cygtrace" --map prog.map \
	--cc -- "${link[@]}" > evaluate.out 2> evaluate.err || fail "deporder --evaluate: $(head -3 evaluate.err)"
awk 'NR > 1 { print $1 }' evaluate.out > got
echo pagein.trace > want
expect_same want got "the traces --evaluate reports"
exit 0
