#!/bin/bash
# linkopt-startup --placement=best with two training workloads that run
# code of their own: ./prog a runs fa0..fa2, ./prog b fb0..fb2 (found by
# name), each function 200 KiB from the next.  The best candidate of each kind (with
# the untraced code in segments, cut into pieces at start-up (+cut4),
# neither) is made again without each
# training workload in turn and scored on it (cross): the left-out
# workload's functions are not in that layout, so its cross figure is
# above its training figure (a cross that leaked the left-out workload's
# traces into its layout would equal it); the choice is the crossed
# candidate that reads least, and the table and a "cross:" line say so.
# With --no-cross nothing is crossed.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
dir=$PWD/rec
cc=("$LINKOPT_CC" --dir="$dir" gcc)

for g in a b; do
	for i in 0 1 2; do
		printf '__attribute__((noinline)) int f%s%d(int x) { return x * %d + %d; }\n' "$g" "$i" "$((i + 3))" "$(printf %d "'$g")"
		printf '__attribute__((noinline, used)) void gap%s%d(void) { __asm__ volatile (".skip 204800, 0x90"); }\n' \
			"$g" "$i"
	done
done > work.c
# main finds them by name (dlsym): no relocation of its own names them, so
# deporder, which orders the untraced code as the link's closure reaches
# it, cannot put the left-out workload's functions beside the traced ones
cat > main.c <<'EOF2'
#include <dlfcn.h>
#include <stdio.h>
typedef int (*fn)(int);
int main(int argc, char **argv)
{
	int s = argc;

	for (int i = 0; argc > 1 && i < 3; i++) {
		char name[8];
		fn f;

		snprintf(name, sizeof(name), "f%c%d", argv[1][0], i);
		f = (fn)dlsym(RTLD_DEFAULT, name);
		if (f)
			s = f(s);
	}
	printf("%d\n", s);
	return 0;
}
EOF2
# in source order: each function 200 KiB from the next in the link
"${cc[@]}" -O2 -ffunction-sections -fdata-sections -fno-toplevel-reorder -c work.c main.c || fail "compile"
"${cc[@]}" -rdynamic -o prog main.o work.o -ldl || fail "link"
run_ok want.out ./prog a

run_ok best.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-bolt --no-relr \
	--workload='./prog b' -- ./prog a
cat best.out
# columns: name code-train code-held model-train measured-train
# model-held measured-held model-cross
row() { awk -v name="$2" '{ sub(/\(the default link\)/, ""); if ($1 == "*") $1 = ""; $0 = $0 } $1 == name' "$1"; }
crossed=$(awk '/^[ *] [a-z]/ { sub(/\(the default link\)/, ""); if ($1 == "*") $1 = ""; $0 = $0
	if ($8 ~ /^[0-9.]+$/) print $1, $4, $8 }' best.out)
[[ $(wc -l <<< "$crossed") == 3 ]] || fail "not three crossed rows (one of each kind): $crossed"
grep -q '+seg16 ' <<< "$crossed" && grep -q '+cut4 ' <<< "$crossed" && grep -Evq '\+(seg16|cut4) ' <<< "$crossed" ||
	fail "the crossed rows are not one with segments, one cut and one with neither: $crossed"
while read -r name train cross; do
	awk -v t="$train" -v c="$cross" 'BEGIN { exit !(c > t) }' ||
		fail "$name: cross $cross is not above its training figure $train: the left-out workload was in its layout"
done <<< "$crossed"
chosen=$(sed -n 's/^chosen: \([^:]*\):.*/\1/p' best.out)
least=$(sort -k3,3n <<< "$crossed" | head -1 | cut -d' ' -f3)
[[ $(row best.out "$chosen" | awk '{ print $8 }') == "$least" ]] ||
	fail "chose $chosen, and $least pages is the least crossed: $crossed"
grep -F "$chosen read " best.out | grep -q '^cross: ' || fail "no cross line names $chosen: $(grep '^cross' best.out)"
expect_grep '^\(cross: the best of each kind' best.out
# on the training workloads the three read alike (a tie goes to the one
# without segments, which every start-up maps in fewer pieces: --no-cross
# below); left out, each of b's functions costs a read-ahead window
# without segments, its segment with them, its piece cut: the cut reads
# less than neither; where it reads as much as the segments (18.5 pages
# both on the day it came) the tie goes to the segments, fewer mappings
# than the cut's pieces.  (Since linkopt-prefetch.o calls four more libc
# functions, the GOT they add pushes the data first layout's small
# read-only segment a page on, and the fault on it reads its window
# centred over the first untraced function's pages with segments: 32.5
# pages against the cut's 18.5, which is chosen.)
cut_cross=$(row best.out data-first+cut4 | awk '{ print $8 }')
seg_cross=$(row best.out data-first+seg16 | awk '{ print $8 }')
plain_cross=$(grep -Ev '\+(seg16|cut4) ' <<< "$crossed" | cut -d' ' -f3)
awk -v c="$cut_cross" -v p="$plain_cross" 'BEGIN { exit !(c != "" && c < p) }' ||
	fail "crossed, the cut reads '$cut_cross', the layout without it '$plain_cross': $crossed"
if [[ $seg_cross == "$cut_cross" ]]; then
	[[ $chosen == *+seg16* ]] || fail "the cut and the segments tie crossed, and the search chose $chosen: $crossed"
fi
expect_grep '^cross: chosen over ' best.out
run_ok got.out ./prog a
expect_same want.out got.out "the chosen layout's output"

# --no-cross: nothing crossed, the training workloads alone choose
"$LINKOPT_STARTUP" --dir="$dir" --target=prog --undo -- true || fail "--undo"
"${cc[@]}" -rdynamic -o prog main.o work.o -ldl || fail "link again through linkopt-cc"
run_ok nocross.out "$LINKOPT_STARTUP" --dir="$dir" --target=prog --placement=best --no-bolt --no-relr --no-cross \
	--workload='./prog b' -- ./prog a
grep '^cross' nocross.out && fail "--no-cross, and a cross line"
awk '/^[ *] [a-z]/ { sub(/\(the default link\)/, ""); if ($1 == "*") $1 = ""; $0 = $0
	if ($8 ~ /^[0-9.]+$/) { print; bad = 1 } } END { exit bad }' nocross.out || fail "--no-cross, and a cross figure"
nocross=$(sed -n 's/^chosen: \([^:]*\):.*/\1/p' nocross.out)
[[ -n $nocross && $nocross != *+seg16* ]] ||
	fail "--no-cross chose '$nocross': the training workloads alone were to choose the layout without segments"
exit 0
