#!/bin/bash
# deporder --placement=data-first: the GNU ld script for the link
# linkopt-bolt rewrites.  On a program whose start-up walks a table of
# names with strlen (the strings in its object's .rodata.str1.1, which
# only the table's relocations name) and reads one traced table: the
# relinked program prints the same; its segments come in start-up's
# order (the headers and relocations, the data segment, the traced
# .rodata alone, the code, then the untraced .rodata with the unwinding
# tables); the table's strings are in the traced .rodata and a cold
# function's strings in the untraced; and a trace of the relinked
# program touches no page of the untraced .rodata (which it would, the
# names' strings, without them).  --evaluate, another --emit, --no-data
# and a missing --trace are usage errors.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need readelf

cat > names.c <<'EOF2'
const char *const names[] = { "alpha-name-of-the-table", "beta-name-of-the-table", "gamma-name-of-the-table" };
EOF2
cat > work.c <<'EOF2'
#include <string.h>
extern const char *const names[];
const unsigned char hot_table[256] = { [0] = 1, [255] = 2 };
const unsigned char cold_table[65536] = { [0] = 3, [65535] = 4 };
/* how many names: from the command line, so that gcc folds nothing */
__attribute__((noinline)) int count_names(int how_many)
{
	int n = 0, i;

	for (i = 0; i < how_many; i++)
		n += (int)strlen(names[i]);
	return n + hot_table[how_many];
}
__attribute__((noinline)) int cold_function(const char *s)
{
	return strcmp(s, "cold-only-string-of-cold-function") + cold_table[1];
}
EOF2
cat > main.c <<'EOF2'
#include <stdio.h>
int count_names(int), cold_function(const char *);
int main(int argc, char **argv)
{
	printf("%d\n", argc > 5 ? cold_function(argv[1]) : count_names(argc + 2));
	return 0;
}
EOF2
gcc -O2 -g -ffunction-sections -fdata-sections -c main.c work.c names.c || fail "cannot compile the program"
link=(gcc -o prog main.o work.o names.o)
"${link[@]}" -Wl,-Map=prog.map || fail "the default link"
"$PAGEIN" --granularity=function --output="$PWD/trace" -- ./prog > want.out 2> pagein.err || fail "pagein: $(head -3 pagein.err)"
deporder_ok first.ld first.err -q --granularity=section --trace trace --map prog.map --emit=gnu-ld --placement=data-first \
	--cc -- "${link[@]}"
expect_grep '^/\* deporder .*; placement data-first: the data segment, then the traced \.rodata, before the code' first.ld \
	"the script's provenance"
gcc -o first main.o work.o names.o -Wl,-T,first.ld || fail "the link with the data-first script"
./first > got.out || fail "the relinked program"
expect_same want.out got.out "the relinked program's output"

# The segments, in the file's order, by the sections each holds.
readelf -lW first | awk '/Section to Segment mapping/ { on = 1; next } on && NF { $1 = ""; print }' > mapping.out
readelf -lW first | awk '$1 == "LOAD" { print $2 }' > loads.out
segment_of() { # SECTION: the index of the PT_LOAD segment holding it (0 for the first)
	local i=0 off
	off=$(readelf -SW first | awk -v n="$1" '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == n { print "0x" $4 }')
	[[ -n $off ]] || fail "readelf finds no $1 in the relinked program"
	while read -r load; do
		sz=$(readelf -lW first | awk -v o="$load" '$1 == "LOAD" && $2 == o { print $5 }')
		((off >= load && off < load + sz)) && { echo $i; return; }
		i=$((i + 1))
	done < loads.out
	fail "no PT_LOAD segment holds $1 (offset $off)"
}
relocs=$(segment_of .rela.dyn) data=$(segment_of .data) rodata=$(segment_of .rodata) text=$(segment_of .text)
untraced=$(segment_of .rodata.untraced) eh=$(segment_of .eh_frame)
echo "segments: .rela.dyn $relocs, .data $data, .rodata $rodata, .text $text, .rodata.untraced $untraced, .eh_frame $eh"
((relocs < data && data < rodata && rodata < text && text < untraced && untraced == eh)) ||
	fail "the segments are not in start-up's order: $(cat mapping.out)"
(($(wc -l < loads.out) == 5)) || fail "$(wc -l < loads.out) PT_LOAD segments, not 5: $(cat mapping.out)"

# The strings: the table's in the traced .rodata, the cold function's not.
readelf -p .rodata first > rodata.strings 2>&1
readelf -p .rodata.untraced first > untraced.strings 2>&1
expect_grep 'alpha-name-of-the-table' rodata.strings "the traced .rodata's strings"
expect_no_grep 'cold-only-string' rodata.strings "the traced .rodata's strings"
expect_grep 'cold-only-string-of-cold-function' untraced.strings "the untraced .rodata's strings"

# What a run of the relinked program touches: nothing of the untraced .rodata.
"$PAGEIN" --output="$PWD/first.trace" -- ./first > /dev/null 2> pagein.err || fail "pagein on the relinked program: $(head -3 pagein.err)"
base=$(awk -v p="$PWD/first" '$1 == "#" && $2 == "object" && $3 == p { print $7 }' first.trace)
[[ -n $base ]] || fail "the trace of the relinked program has no object line for it"
read -r start size < <(readelf -SW first | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".rodata.untraced" { print "0x" $3, "0x" $5 }')
touched=$(awk -v b=$((base)) -v s=$((start)) -v z=$((size)) '$1 !~ /^#/ && $3 == "D" { a = strtonum($2) - b; if (a + 4096 > s && a < s + z) print $2 }' first.trace)
[[ -z $touched ]] || fail "the run touched the untraced .rodata at $touched"

# usage errors
for bad in "--evaluate" "--emit=lld" "--no-data"; do
	emit=--emit=gnu-ld
	[[ $bad == --emit=* ]] && emit=$bad
	run_deporder bad.out bad.err -q --granularity=section --trace trace --map prog.map $emit --placement=data-first \
		$([[ $bad == --emit=* ]] || echo "$bad") --cc -- "${link[@]}"
	expect_status 2 "--placement=data-first with $bad"
done
run_deporder bad.out bad.err -q --granularity=section --emit=gnu-ld --placement=data-first --cc -- "${link[@]}"
expect_status 2 "--placement=data-first without --trace"
expect_grep 'data-first needs --trace' bad.err "the error without --trace"
exit 0
