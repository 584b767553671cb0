#!/bin/bash
# deporder --placement=cold-start: the layout --evaluate's model predicts
# to read the fewest file pages at start-up.  For GNU ld, on the program
# of coldstart-lib.sh at 16 KiB of read-ahead: the relinked program runs
# as before; its traced .rodata objects come last in .rodata, after every
# untraced table, next to the data segment, the unwinding tables first in
# that segment (readelf, nm); the traced functions lie in the traced
# ranges the script marks and the untraced ones outside, the end part of
# the traced code ending .text; the model predicted fewer pages than with
# the head placement, and its prediction, made from the default link's
# trace, is the count made from the relinked program's own trace (exact
# without read-ahead, within 5% at 16 KiB).  At 8 KiB the traced .rodata
# goes alone before the data segment, the untraced .rodata and .eh_frame
# in a read-only segment after it.  For lld the traced code goes after
# the untraced; gold's placement is its head placement.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need readelf ld.lld

coldstart_program
place() { # KB FORM OUTPUT: deporder's cold-start placement
	deporder_ok "$3" place.err -q --granularity=section --placement=cold-start --read-ahead-kb="$1" --emit="$2" \
		--trace trace --map prog.map --cc -- "${coldstart_link[@]}"
}
place 16 gnu-ld cold.ld
expect_grep '^deporder: placement for a cold start at 16 KiB of read-ahead: [0-9]+ bytes of the traced code at the head of \.text, [0-9]+ at its end' \
	place.err "the placement report"
read -r chosen head < <(sed -n 's/.*: \([0-9]*\) file pages read in [0-9]* requests predicted, against \([0-9]*\) in .*/\1 \2/p' place.err)
[[ -n $head ]] || fail "the placement report gives no predicted pages: $(cat place.err)"
((chosen < head)) || fail "the cold-start placement reads $chosen pages predicted, the head placement $head"
expect_grep '^/\* deporder .*; placement cold-start at 16 KiB: ' cold.ld "the script's provenance"

gcc -o cold main.o work.o "$TOP/prefetch/linkopt-prefetch.o" -Wl,-T,cold.ld || fail "the link with the cold-start script"
./cold > got.out || fail "the relinked program"
expect_same want.out got.out "the relinked program's output"

# The read-only data segment: unwinding tables, then .rodata, the traced
# objects last.
section() { readelf -SW cold | awk -v n="$1" '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == n { print "0x" $3, "0x" $5 }'; }
read -r eh_hdr _ < <(section .eh_frame_hdr)
read -r eh _ < <(section .eh_frame)
read -r rodata rodata_size < <(section .rodata)
[[ -n $eh_hdr && -n $eh && -n $rodata ]] || fail "readelf finds no .eh_frame_hdr, .eh_frame or .rodata in cold"
((eh_hdr < rodata && eh < rodata)) || fail ".eh_frame_hdr ($eh_hdr) and .eh_frame ($eh) do not come before .rodata ($rodata)"
symbol() { nm -S cold | awk -v s="$1" '$4 == s { print "0x" $1, "0x" $2; exit }'; }
cold_end=0
for i in $(seq 0 11); do
	read -r a size < <(symbol t$i)
	[[ -n $a ]] || fail "nm finds no t$i"
	((a + size > cold_end)) && cold_end=$((a + size))
done
hot_end=0
for s in s1 s3 s5 hot; do
	read -r a size < <(symbol $s)
	[[ -n $a ]] || fail "nm finds no $s"
	((a >= cold_end)) || fail "the traced object $s at $a is before the end of the untraced tables ($cold_end)"
	((a + size > hot_end)) && hot_end=$((a + size))
done
# the end of the segment (a few bytes of merged strings at most after the
# traced objects), and the data segment's first page in the file after it
ro_size= data=
while read -r offset address size flags; do
	((address <= rodata && rodata < address + size)) && ro_offset=$offset ro_address=$address ro_size=$size
	[[ -z $data && $flags == *W* ]] && data=$offset
done < <(readelf -lW cold | awk '$1 == "LOAD" { print $2, $3, $5, $7 }')
[[ -n $ro_size && -n $data ]] || fail "readelf finds no segment holding .rodata, or no data segment"
((ro_address + ro_size - hot_end < 64)) ||
	fail "the traced .rodata ends at $hot_end, $((ro_address + ro_size - hot_end)) bytes before the end of its segment"
(((data & ~4095) - ((ro_offset + ro_size) & ~4095) <= 4096)) ||
	fail "the data segment (file offset $data) is not on the page after the read-only data's end"

# The code: the traced functions in the traced ranges, the others outside.
address() { nm cold | awk -v s="$1" '$3 == s { print "0x" $1; exit }'; }
start=$(address __linkopt_hot_start) end=$(address __linkopt_hot_end)
head_end=$(address __linkopt_hot_head_end) tail_start=$(address __linkopt_hot_tail_start)
[[ -n $start && -n $end && -n $head_end && -n $tail_start ]] ||
	fail "the script split no traced code at 16 KiB (nm: start $start, head end $head_end, tail start $tail_start, end $end)"
traced() { ((($1 >= start && $1 < head_end) || ($1 >= tail_start && $1 < end))); }
nm -n cold | awk '$2 ~ /^[tT]$/ { print "0x" $1, $3 }' > functions.txt
while read -r a name; do
	case $name in
	c[0-9]*) ! traced "$a" || fail "the untraced $name at $a is in a traced range" ;;
	main | h[0-9] | g9 | g17 | _fini) traced "$a" || fail "the traced $name at $a is outside the traced ranges" ;;
	esac
done < functions.txt
read -r text text_size < <(section .text)
((text + text_size - end < 64)) || fail "the traced code ends at $end, before the end of .text ($((text + text_size)))"

# The model's prediction against the relinked program's own trace and map.
relinked_count() { # KB SCRIPT: the pages --evaluate replays from the relink's own trace
	gcc -o plain main.o work.o -Wl,-T,"$2" -Wl,-Map=plain.map || fail "the link with $2"
	"$PAGEIN" --granularity=function --output="$PWD/plain.trace" -- ./plain > got.out 2> pagein.err ||
		fail "pagein on the relinked program: $(head -3 pagein.err)"
	expect_same want.out got.out "the relinked program's output"
	deporder_ok plain.out plain.err -q --granularity=section --evaluate --read-ahead-kb="$1" --trace plain.trace \
		--map plain.map --cc -- gcc -o plain main.o work.o
	awk 'NR == 2 { print $6 }' plain.out
}
predicted() { # KB
	deporder_ok evaluate.out evaluate.err -q --granularity=section --evaluate --placement=cold-start \
		--read-ahead-kb="$1" --trace trace --map prog.map --cc -- "${coldstart_link[@]}"
	awk 'NR == 2 { print $7 }' evaluate.out
}
place 0 gnu-ld cold0.ld
p=$(predicted 0) m=$(relinked_count 0 cold0.ld)
[[ $p == "$m" ]] || fail "no read-ahead: $p pages read predicted for the cold-start placement, its relink's trace touches $m"
p=$(predicted 16) m=$(relinked_count 16 cold.ld)
((p * 20 >= m * 19 && p * 20 <= m * 21)) ||
	fail "16 KiB: $p pages read predicted for the cold-start placement, $m from its relink's own trace"
# the placement made for 16 KiB, on a disk without read-ahead
deporder_ok evaluate.out evaluate.err -q --granularity=section --evaluate --placement=cold-start \
	--placement-read-ahead-kb=16 --read-ahead-kb=0 --trace trace --map prog.map --cc -- "${coldstart_link[@]}"
p=$(awk 'NR == 2 { print $7 }' evaluate.out) m=$(relinked_count 0 cold.ld)
[[ $p == "$m" ]] || fail "the placement for 16 KiB without read-ahead: $p pages read predicted, its relink touches $m"

# At 8 KiB the traced .rodata goes apart: alone in the read-only segment
# before the data segment; the untraced tables, in .rodata.untraced, and
# the unwinding tables in a read-only segment after it.
place 8 gnu-ld apart.ld
expect_grep 'the traced \.rodata alone before the data segment, the untraced \.rodata and the unwinding tables after it' \
	place.err "the placement report at 8 KiB"
gcc -o apart main.o work.o -Wl,-T,apart.ld || fail "the link with the script for 8 KiB"
expect_output want.out got.out "the output of the link for 8 KiB" ./apart
segment_of() { # BINARY ADDRESS: "FLAGS VADDR" of the load segment holding ADDRESS
	readelf -lW "$1" | awk '$1 == "LOAD" { print $3, $6, $7 }' | while read -r va msz flags; do
		(($2 >= va && $2 < va + msz)) && { echo "$flags $va"; break; }
	done
}
data=$(readelf -lW apart | awk '$1 == "LOAD" && $7 ~ /W/ { print $3; exit }')
for s in s1 s3 s5 hot t0 t11; do
	a=$(nm apart | awk -v s="$s" '$3 == s { print "0x" $1; exit }')
	[[ -n $a ]] || fail "nm finds no $s in apart"
	read -r flags va < <(segment_of apart "$a")
	[[ $flags == R ]] || fail "$s at $a is in a segment with flags '$flags', not a read-only one"
	case $s in
	t*) ((va > data)) || fail "the untraced $s at $a is not in a segment after the data segment ($data)" ;;
	*) ((va < data)) || fail "the traced $s at $a is not in a segment before the data segment ($data)" ;;
	esac
done
eh=$(readelf -SW apart | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".eh_frame" { print "0x" $3 }')
[[ -n $eh ]] && ((eh > data)) || fail ".eh_frame (${eh:-none}) is not after the data segment ($data)"
p=$(predicted 8) m=$(relinked_count 8 apart.ld)
((p * 20 >= m * 19 && p * 20 <= m * 21)) ||
	fail "8 KiB: $p pages read predicted for the cold-start placement, $m from its relink's own trace"

# lld: the traced code after the untraced.
place 16 lld cold.lld
last_cold=$(grep -n '^c[0-9]*$' cold.lld | tail -1 | cut -d: -f1)
first_hot=$(grep -n '^\(h[0-9]\|g9\|g17\)$' cold.lld | head -1 | cut -d: -f1)
[[ -n $last_cold && -n $first_hot ]] && ((first_hot > last_cold)) ||
	fail "lld's file names a traced function (line $first_hot) before an untraced one (line $last_cold)"
gcc -fuse-ld=lld -o cold-lld main.o work.o -Wl,--symbol-ordering-file,cold.lld || fail "the lld link"
expect_output want.out got.out "the lld link's output" ./cold-lld
nm -n cold-lld | awk '$2 ~ /^[tT]$/ && $3 ~ /^(c[0-9]+|h[0-9]|g9|g17)$/ { print $3 }' > lld.order
[[ $(grep -n '^c' lld.order | tail -1 | cut -d: -f1) -lt $(grep -n '^[hg]' lld.order | head -1 | cut -d: -f1) ]] ||
	fail "lld put a traced function before an untraced one: $(tr '\n' ' ' < lld.order)"

# gold: as the head placement.
place 16 gold cold.gold
deporder_ok head.gold head.err -q --granularity=section --emit=gold --trace trace --map prog.map \
	--cc -- "${coldstart_link[@]}"
expect_same <(tail -n +2 head.gold) <(tail -n +2 cold.gold) "gold's cold-start placement"

# Refusals.
for args in "--emit=gnu-ld --placement=cold-start" "--granularity=object --trace trace --map prog.map --placement=cold-start --emit=gnu-ld" \
	"--granularity=section --trace trace --map prog.map --placement=cold-start" "--granularity=section --trace trace --map prog.map --placement=near" \
	"--granularity=section --trace trace --map prog.map --emit=gnu-ld --placement-read-ahead-kb=16"; do
	run_deporder out err $args --cc -- "${coldstart_link[@]}"
	expect_status 2 "deporder $args"
done
exit 0
