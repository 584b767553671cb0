#!/bin/bash
# linkopt cut, the untraced read-only data: a data-first order puts the
# untraced .rodata (and the unwinding tables) in a read-only segment of its
# own after the code; the cut's record names it and linkopt-prefetch.o's
# constructor advises it MADV_RANDOM, so that a fault there reads its page
# alone and not a read-ahead window centred on it (on SQLite's shell,
# .schema read 144 pages cold against 171).  A program whose 40 untraced
# functions of 8 KiB each read a table of 8 KiB of its own
# (untraced_program tables): cut, it prints the
# same; linkopt cut says what it advised, and smaps shows it advised (not
# where the record's cut is written wrong); the model's fault on table20
# reads one page where the same cut with the advice zeroed in its record
# reads a window; as root, a cold start of "prog 20" from a loop device
# reads what the model predicts, and less than without the advice.  Warm,
# the advice adds no mapping (the segment advised whole stays one).  An
# order with the head placement has no such segment: nothing advised; nor
# is a segment that also holds the traced .rodata or maps the file's first
# page.  A record of version 1
# (an older linkopt-prefetch.o) is cut, not advised.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need_prefetch
need readelf
LINKOPT=$TOP/linkopt-report/linkopt
[[ -x $LINKOPT ]] || fail "linkopt is not built"

untraced_program tables
gcc -O2 -ffunction-sections -fdata-sections -c prog.c || fail "compile"
gcc -o prog prog.o -Wl,-Map=prog.map || fail "the default link"
"$PAGEIN" --granularity=function --output="$PWD/trace" -- ./prog > want.out 2> pagein.err ||
	fail "pagein: $(head -3 pagein.err)"
./prog 20 > want20.out || fail "prog 20"
deporder_ok order.ld order.err -q --granularity=section --placement=data-first --emit=gnu-ld \
	--trace trace --map prog.map --cc -- gcc -o prog prog.o
gcc -o ordered prog.o "$prefetch" -Wl,-T,order.ld || fail "the ordered link"
run_ok cut.out "$LINKOPT" cut --kb 4 -o cut ordered
expect_grep '^cut: 0x[0-9a-f]*-0x[0-9a-f]* cut into [0-9]* mappings of 4 KiB at start-up$' cut.out
expect_grep '^cut: 0x[0-9a-f]*-0x[0-9a-f]*, the untraced read-only data, advised MADV_RANDOM at start-up' cut.out
expect_output want.out got.out "cut's output" ./cut
expect_output want20.out got20.out "cut's output, calling cold20" ./cut 20

# the advised range is the read-only segment that holds .rodata.untraced,
# and table20 is in it
range=$(sed -n 's/^cut: 0x\([0-9a-f]*\)-0x\([0-9a-f]*\), the untraced.*/\1 \2/p' cut.out)
read -r from to <<< "$range"
untraced=$(readelf -SW cut | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".rodata.untraced" { print $3 }')
[[ -n $untraced ]] || fail "no .rodata.untraced in cut: $(readelf -SW cut)"
t20=$(nm cut | awk '$3 == "table20" { print $1 }')
((16#$from <= 16#$untraced && 16#$untraced < 16#$to && 16#$from <= 16#$t20 && 16#$t20 < 16#$to)) ||
	fail "the advised 0x$from-0x$to holds not .rodata.untraced (0x$untraced) and table20 (0x$t20)"
((16#$from % 4096 == 0 && 16#$to % 4096 == 0)) || fail "the advised 0x$from-0x$to is not page-aligned"

# the same cut with the advice zeroed in its record (its last 16 bytes)
off=$(cut_record_offset cut)
[[ -n $off ]] || fail "cut has no linkopt_cut record in a segment"
cp cut noadvice && dd if=/dev/zero of=noadvice bs=1 seek=$((off + 40)) count=16 conv=notrunc status=none
cmp -s cut noadvice && fail "noadvice is the same file as cut: the test did not write its record"
expect_output want20.out got20.out "noadvice's output, calling cold20" ./noadvice 20

# the model: the fault on table20's page reads it alone in cut, a window
# in noadvice
predicted() { # FILE: the pages the model predicts a cold start of FILE 20 reads; FILE.requests
	local f=$1
	"$PAGEIN" --granularity=function --output="$PWD/$f.20.trace" -- ./$f 20 > /dev/null 2> pagein.err ||
		fail "pagein on $f 20: $(head -3 pagein.err)"
	run_ok $f.requests "$PAGEIN" report --read-ahead-kb 128 --read-requests $f.20.trace
	awk -v p="$PWD/$f" '$1 == p { n = split($0, x, " "); print x[n - 1] }' $f.requests
}
page_of_t20=$(($(file_offset_of cut table20) / 4096))
predicted_cut=$(predicted cut) predicted_noadvice=$(predicted noadvice)
[[ $predicted_cut =~ ^[0-9]+$ && $predicted_noadvice =~ ^[0-9]+$ ]] ||
	fail "pagein report names no cold start: $(cat cut.requests noadvice.requests)"
got=$(model_reads_at cut "$page_of_t20") was=$(model_reads_at noadvice "$page_of_t20")
[[ $got == 1 ]] || fail "the model's fault on table20 (page $page_of_t20) reads ${got:-no} pages in cut, not 1: $(cat cut.requests)"
((${was:-0} > 8)) || fail "the model's fault on table20 reads ${was:-no} pages in noadvice, not a window: $(cat noadvice.requests)"
((predicted_cut < predicted_noadvice)) ||
	fail "the model predicts $predicted_cut pages for cut, not less than $predicted_noadvice without the advice"
echo "model: the fault on table20 reads $got page advised, $was not; $predicted_cut pages against $predicted_noadvice"

# warm, the advice adds no mapping
gcc -O2 -shared -fPIC -o maps-at-exit.so "$TESTDIR/maps-at-exit.c" || fail "cannot compile maps-at-exit.c"
here=$(pwd -P)
for n in cut noadvice; do
	cat $n > /dev/null
	LD_PRELOAD=$here/maps-at-exit.so MAPS_OUT=$here/$n.maps ./$n 20 > /dev/null || fail "./$n 20 with maps-at-exit.so"
done
warm_cut=$(maps_count cut cut.maps) warm_noadvice=$(maps_count noadvice noadvice.maps)
((warm_cut > 0 && warm_cut == warm_noadvice)) ||
	fail "warm, cut is $warm_cut mappings, noadvice $warm_noadvice: the advice cut a mapping: $(cat cut.maps)"

# the kernel's own word (VmFlags "rr" in smaps): the segment advised in
# cut, not in noadvice, nor where the record's cut is written wrong (a
# piece of 100 bytes: the constructor does nothing)
segment_offset=$(readelf -lW cut | awk '$1 == "LOAD" { print $2, $3 }' | while read -r o va; do
	((va == 16#$from)) && printf '%08x\n' $((o))
done)
[[ -n $segment_offset ]] || fail "no PT_LOAD of cut starts at the advised 0x$from: $(readelf -lW cut)"
cp noadvice badpiece && dd if=cut of=badpiece bs=1 skip=$((off + 40)) seek=$((off + 40)) count=16 conv=notrunc status=none &&
	printf 'd\0\0\0\0\0\0\0' | dd of=badpiece bs=1 seek=$((off + 32)) conv=notrunc status=none
advised() { # FILE: the VmFlags of the mapping of FILE's advised segment, from smaps at its exit
	LD_PRELOAD=$here/maps-at-exit.so MAPS_SMAPS=1 MAPS_OUT=$here/$1.smaps ./$1 20 > /dev/null ||
		fail "./$1 20 with maps-at-exit.so"
	awk -v f="$here/$1" -v o="$segment_offset" '
		/^[0-9a-f]+-[0-9a-f]+ / { on = ($6 == f && $3 == o) }
		on && /^VmFlags:/ { print; exit }' $1.smaps
}
flags=$(advised cut)
[[ $flags =~ \ rr ]] || fail "the advised segment of cut is not MADV_RANDOM in smaps: ${flags:-no such mapping}"
for n in noadvice badpiece; do
	flags=$(advised $n)
	[[ -n $flags ]] || fail "no mapping of $n at offset $segment_offset in its smaps"
	[[ $flags =~ \ rr ]] && fail "the segment of $n is advised MADV_RANDOM: $flags"
done
expect_output want20.out got20.out "badpiece's output, calling cold20" ./badpiece 20

# a segment that holds the traced .rodata too (read at every start) is not
# advised: the same order with its .rodata statement moved to just before
# .rodata.untraced, into that segment
awk '
	/^  \.rodata  *: \{/ { moving = 1 }
	moving { held = held $0 "\n"; if ($0 ~ /^  \}/) moving = 0; next }
	/^  \.rodata\.untraced :/ { printf "%s", held }
	{ print }' order.ld > mixed.ld
gcc -o mixed prog.o "$prefetch" -Wl,-T,mixed.ld || fail "the link with .rodata after .rodata.untraced"
readelf -lW mixed | grep -E '^ +[0-9]+ +(.* )?\.rodata \.rodata\.untraced ' > /dev/null ||
	fail "mixed's .rodata and .rodata.untraced are not in one segment: $(readelf -lW mixed)"
run_ok mixedcut.out "$LINKOPT" cut --kb 4 -o mixedcut mixed
expect_grep '^mixedcut: 0x[0-9a-f]*-0x[0-9a-f]* cut into' mixedcut.out
expect_no_grep 'advised' mixedcut.out "linkopt cut of a segment that holds .rodata"
mixedoff=$(cut_record_offset mixedcut)
[[ -n $mixedoff && $(od -An -tx1 -j $((mixedoff + 40)) -N 16 mixedcut | tr -d ' 0\n') == "" ]] ||
	fail "mixedcut's record names a segment to advise: $(od -An -tx1 -j "${mixedoff:-0}" -N 56 mixedcut)"
expect_output want20.out got20.out "mixedcut's output, calling cold20" ./mixedcut 20
# nor one that maps the file's first page (the headers and the dynamic
# symbols): .rodata.untraced moved to just after the headers
awk '
	NR == FNR { if ($0 ~ /^  \.rodata\.untraced :/) moving = 1
		    if (moving) { held = held $0 "\n"; if ($0 ~ /^  \}/) moving = 0 }
		    next }
	/^  \.rodata\.untraced :/ { skipping = 1 }
	skipping { if ($0 ~ /^  \}/) skipping = 0; next }
	{ print }
	/SIZEOF_HEADERS;$/ { printf "%s", held }' order.ld order.ld > first.ld
gcc -o first prog.o "$prefetch" -Wl,-T,first.ld || fail "the link with .rodata.untraced after the headers"
offset=$(readelf -SW first | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".rodata.untraced" { print $4 }')
[[ -n $offset ]] && ((16#$offset < 4096)) ||
	fail "first's .rodata.untraced is not on its first page: $(readelf -SW first)"
run_ok firstcut.out "$LINKOPT" cut --kb 4 -o firstcut first
expect_grep '^firstcut: 0x[0-9a-f]*-0x[0-9a-f]* cut into' firstcut.out
expect_no_grep 'advised' firstcut.out "linkopt cut of a segment that maps the file's first page"
expect_output want20.out got20.out "firstcut's output, calling cold20" ./firstcut 20

# the head placement: no .rodata.untraced, nothing advised
deporder_ok head.ld head.err -q --granularity=section --placement=head --emit=gnu-ld \
	--trace trace --map prog.map --cc -- gcc -o prog prog.o
gcc -o head prog.o "$prefetch" -Wl,-T,head.ld || fail "the link with the head order"
run_ok headcut.out "$LINKOPT" cut --kb 4 -o headcut head
expect_grep '^headcut: 0x[0-9a-f]*-0x[0-9a-f]* cut into' headcut.out
expect_no_grep 'advised' headcut.out "linkopt cut of a head order"
expect_output want20.out got20.out "headcut's output, calling cold20" ./headcut 20

# a record of version 1 (linkopt-prefetch.o before 2026-12-07: 40 bytes,
# no segment to advise) is filled as version 1: cut, nothing advised, and
# the model reads it (the fault on cold20's code reads its piece)
cat > v1.c <<'EOF2'
/* the record of version 1 (40 bytes: magic, start, end, piece), then 16
   bytes that are not its own */
__asm__(".data\n.balign 8\n.type linkopt_cut, @object\n.size linkopt_cut, 40\nlinkopt_cut:\n"
	".ascii \"linkopt cut 1\\0\\0\\0\"\n.zero 24\n.ascii \"not the record's\"\n");
/* the script defines the end of the traced code for a file that names it */
extern const char __linkopt_hot_end[] __attribute__((weak));
__attribute__((used)) const void *const v1_hot_end = __linkopt_hot_end;
EOF2
gcc -O2 -c v1.c || fail "compile v1.c"
gcc -o v1 prog.o v1.o -Wl,-T,order.ld || fail "the ordered link with a record of version 1"
cp v1 v1.before
run_ok v1cut.out "$LINKOPT" cut --kb 4 v1
expect_grep '^v1: 0x[0-9a-f]*-0x[0-9a-f]* cut into [0-9]* mappings of 4 KiB at start-up$' v1cut.out
expect_no_grep 'advised' v1cut.out "linkopt cut of a record of version 1"
expect_grep '^linkopt: warning: v1: a cut record of version 1 .*: its untraced read-only data is not advised' v1cut.out.err
v1off=$(cut_record_offset v1)
[[ -n $v1off ]] || fail "v1 has no linkopt_cut record in a segment"
[[ $(od -An -tx1 -j $((v1off + 40)) -N 16 v1) == $(od -An -tx1 -j $((v1off + 40)) -N 16 v1.before) ]] ||
	fail "linkopt cut wrote past the record of version 1 (its 40 bytes)"
[[ $(dd if=v1 bs=1 skip="$v1off" count=13 status=none) == "linkopt cut 1" ]] ||
	fail "the record of version 1 lost its magic: $(od -c -N 16 -j "$v1off" v1)"
[[ $(od -An -tu8 -j $((v1off + 32)) -N 8 v1 | tr -d ' ') == 4096 ]] ||
	fail "the record of version 1 has not its piece of 4096: $(od -An -tu8 -j "$v1off" -N 40 v1)"
predicted v1 > /dev/null
page_of_cold20=$(($(file_offset_of v1 cold20) / 4096))
[[ $(model_reads_at v1 "$page_of_cold20") == 1 ]] ||
	fail "the model's fault on cold20 (page $page_of_cold20) of v1 reads not its piece: $(cat v1.requests)"

# as root, the kernel reads what the model predicts, less with the advice
((EUID == 0)) || exit 0
declare -A measured
cold_as_predicted 20 cut noadvice
((measured[cut] < measured[noadvice])) ||
	fail "cut read ${measured[cut]} pages at a cold start, not less than ${measured[noadvice]} without the advice"
echo "cold: cut read ${measured[cut]} pages, ${measured[noadvice]} without the advice"
