#!/bin/bash
# cygtrace on a clang build: a program and a DSO of several compile units
# built by clang (22 here, its default DWARF 5) with -finstrument-functions
# and -ffunction-sections, linked by lld when there is one, resolve to
# their call sequence; deporder reads that link's own map (lld's, or GNU
# ld's) with the trace, matches every record, and the order relinked with
# lld puts the traced functions together in first-touch order.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/clang-lib.sh"
need_clang
need_deporder
CYG=$TOP/cygtrace
[[ -f $CYG/libcygtrace.so && -x $CYG/cygtrace-resolve ]] || fail "cygtrace is not built (run make)"
fuse=()
command -v ld.lld > /dev/null && fuse=(-fuse-ld=lld)

cat > seq.c <<'EOF2'
#include <stdio.h>
int leaf(int);
int plug(int);
__attribute__((noinline)) int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__attribute__((noinline)) int never(int x) { return x * 11; }
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", fact(5) + leaf(argc) + plug(1) + (argc > 5 ? never(argc) : 0));
	return 0;
}
EOF2
cat > leaf.c <<'EOF2'
__attribute__((noinline)) int leaf(int x) { return x + 1; }
EOF2
cat > plug.c <<'EOF2'
__attribute__((noinline)) int plug(int x) { return x * 3; }
EOF2
"$CLANG" -g -O2 -finstrument-functions -fPIC -shared -o libplug.so plug.c || fail "cannot build libplug.so"
"$CLANG" -g -O2 -ffunction-sections -finstrument-functions -c seq.c leaf.c || fail "cannot compile"
link=("$CLANG" "${fuse[@]}" -o seq seq.o leaf.o -L. -lplug -L"$CYG" -lcygtrace -Wl,-rpath,"$PWD:$CYG")
"${link[@]}" -Wl,-Map=seq.map || fail "cannot link seq"
mkdir traces
CYGTRACE_DIR=$PWD/traces ./seq > out.txt || fail "the program failed"
[[ $(cat out.txt) == 125 ]] || fail "the program printed '$(cat out.txt)'"
"$CYG/cygtrace-resolve" traces/cygtrace.* > resolved 2> resolve.err || fail "cygtrace-resolve: $(head -3 resolve.err)"
awk '{ print $6 }' resolved > got
printf '%s\n' main fact leaf plug > want
expect_same want got "the first entries of the clang build"
awk '$6 == "plug" { print $4 }' resolved | grep -q 'libplug\.so$' || fail "plug is not in libplug.so"

status=0
"$DEPORDER" -q --granularity=section --page-size=0 --trace traces/cygtrace.* --map seq.map --emit=lld \
	--cc -- "${link[@]}" > order.lld 2> order.err || status=$?
((status == 0)) || fail "deporder with the trace and the map: status $status: $(head -3 order.err)"
expect_grep ': [0-9]+ records of .*/seq: [0-9]+ matched an input section of the link \(100\.0%\)' order.err \
	"the match report"
if ((${#fuse[@]})); then
	"${link[@]/%seq/seq-ordered}" -Wl,--symbol-ordering-file,order.lld 2> relink.err ||
		fail "the relink with the order: $(head -3 relink.err)"
	[[ $(./seq-ordered) == 125 ]] || fail "the relinked program printed '$(./seq-ordered)'"
	nm -n seq-ordered | awk '$3 ~ /^(main|fact|leaf|never)$/ { print $3 }' > placed
	printf '%s\n' main fact leaf never > want.placed
	expect_same want.placed placed "the relinked program's functions in address order"
fi
exit 0
