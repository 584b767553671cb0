#!/bin/bash
# deporder --untraced-segment-kb=N (gnu-ld): the code no trace ran goes in
# segments of at most N KiB each, so that a later run touching one such
# function reads ahead to its segment's end at most (a fault in an
# executable mapping reads ahead from the faulting page to the mapping's
# end, Linux 6.16 and later), where it read a whole 128 KiB window: on
# SQLite's shell, held-out workloads read 215 and 214 pages instead of 248
# and 268 (bench/segments/run).  A program with 40 untraced functions of 8 KiB,
# placed for a cold start with 16 KiB segments: the same output, each
# untraced function in an executable segment of at most 16 KiB, the traced
# code and the prefetch's range as before; a run that calls one untraced
# function is predicted to read at most its segment there (16 KiB: 5
# pages at most), where the link without segments reads more; as root, a
# cold start from a loop device reads what the model predicts.  Refused
# (usage) for another linker, without a trace, at a size that is no
# multiple of 4 KiB.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need_prefetch

untraced_program
gcc -O2 -ffunction-sections -fdata-sections -c prog.c || fail "compile"
gcc -o prog prog.o -Wl,-Map=prog.map || fail "the default link"
"$PAGEIN" --granularity=function --output="$PWD/trace" -- ./prog > want.out 2> pagein.err ||
	fail "pagein: $(head -3 pagein.err)"
for n in plain seg; do
	more=()
	[[ $n == seg ]] && more=(--untraced-segment-kb=16)
	deporder_ok $n.ld $n.err -q --granularity=section --placement=cold-start --emit=gnu-ld "${more[@]}" \
		--trace trace --map prog.map --cc -- gcc -o prog prog.o
	gcc -o $n prog.o "$prefetch" -Wl,-T,$n.ld || fail "the link of $n.ld: $(cat $n.err)"
	expect_output want.out got.out "$n's output" ./$n
	./prog 20 > want20.out || fail "prog 20"
	expect_output want20.out got20.out "$n's output, calling cold20" ./$n 20
done
expect_grep 'linkopt: the untraced code in segments of at most 16 KiB' seg.ld
# refused where it cannot apply (another linker's order, no trace), and
# a size that is no multiple of 4 KiB: usage errors
common=(--granularity=section --map prog.map --cc -- gcc -o prog prog.o)
expect_exit 2 lld.out "$DEPORDER" --emit=lld --untraced-segment-kb=16 --trace trace "${common[@]}"
expect_grep 'untraced-segment-kb is for --emit=gnu-ld with --trace' lld.out.err
expect_exit 2 notrace.out "$DEPORDER" --emit=gnu-ld --untraced-segment-kb=16 --granularity=section --cc -- gcc -o prog prog.o
expect_grep 'untraced-segment-kb is for --emit=gnu-ld with --trace' notrace.out.err
expect_exit 2 odd.out "$DEPORDER" --emit=gnu-ld --untraced-segment-kb=6 --trace trace "${common[@]}"
expect_grep 'is not a multiple of 4 from 4 to 1048576' odd.out.err

# each untraced function in an executable segment of at most 16 KiB
# loads FILE: its PT_LOADs, "OFFSET VADDR MEMSZ EXEC" in decimal (mawk has no strtonum)
loads() {
	local off va pa fsz msz
	readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $6, (/ R E / ? 1 : 0) }' | while read -r off va msz x; do
		echo $((off)) $((va)) $((msz)) "$x"
	done
}
loads seg | awk '$4 == 1 { print $2, $3 }' > exec.txt
(($(wc -l < exec.txt) >= 20)) || fail "seg has $(wc -l < exec.txt) executable segments: $(cat exec.txt)"
for i in $(seq 0 39); do
	a=$(nm seg | awk -v s="cold$i" '$3 == s { print $1 }')
	[[ -n $a ]] || fail "seg has no cold$i"
	size=$(awk -v a=$((16#$a)) '{ if (a >= $1 && a < $1 + $2) print $2 }' exec.txt)
	[[ -n $size ]] || fail "cold$i (0x$a) is in no executable segment of seg: $(cat exec.txt)"
	((size <= 16384)) || fail "cold$i is in an executable segment of $size bytes, not at most 16 KiB"
done
# the traced code stays together, and the prefetch has its range
for s in hot0 hot5 main __linkopt_hot_start __linkopt_hot_end; do
	nm seg | grep -q " $s$" || fail "seg has no $s"
done

# a run calling cold20: in seg, its fault reads to its segment's end at
# most; in plain, a whole window
for n in plain seg; do
	"$PAGEIN" --granularity=function --output="$PWD/$n.20.trace" -- ./$n 20 > /dev/null 2> pagein.err ||
		fail "pagein on $n 20: $(head -3 pagein.err)"
	run_ok $n.requests "$PAGEIN" report --read-ahead-kb 128 --read-requests $n.20.trace
done
# page_of FILE SYMBOL: the file page SYMBOL's first byte is on
page_of() {
	local a
	a=$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')
	loads "$1" | awk -v a=$((16#$a)) '{ if (a >= $2 && a < $2 + $3) print int((a - $2 + $1) / 4096) }'
}
off=$(page_of seg cold20)
got=$(model_reads_at seg "$off")
[[ -n $got ]] || fail "no read of cold20's page $off in seg's model: $(cat seg.requests)"
((got <= 5)) || fail "the fault on cold20 reads $got pages in seg, not at most its 16 KiB segment (5 pages when it starts inside one)"
off=$(page_of plain cold20)
was=$(model_reads_at plain "$off")
((${was:-0} > got)) || fail "without segments the read of cold20 is ${was:-none} pages, not more than $got"
echo "the fault on cold20 reads $got pages with 16 KiB segments, $was without"

# as root, the kernel reads what the model predicts
((EUID == 0)) || exit 0
need_coldstart_loop
predicted=$(awk -v p="$PWD/seg" '$1 == p { n = split($0, f, " "); print f[n - 1] }' seg.requests)
[[ $predicted =~ ^[0-9]+$ ]] || fail "pagein-report names no cold start of seg: $(cat seg.requests)"
gcc -O2 -o coldstart "$TOP/bench/lib/coldstart.c" || fail "cannot compile bench/lib/coldstart.c"
coldstart_mount
cp seg mnt/ && sync
echo 128 > "$queue/read_ahead_kb" || fail "cannot set read_ahead_kb of $loop"
./coldstart mnt/seg -- mnt/seg 20 > /dev/null || fail "the cold run of seg"
for run in 1 2 3 4 5; do
	./coldstart --map mnt/seg -- mnt/seg 20 || fail "the cold run of seg"
done > runs.txt
pages=$(awk '!/^map/ { print $2 }' runs.txt | sort | uniq -c | sort -k1,1nr -k2,2nr | awk 'NR == 1 { print $2 }')
[[ $pages == "$predicted" ]] ||
	fail "a cold start of seg 20 read $pages pages, the model predicts $predicted; read: $(grep -m1 '^map' runs.txt)"
exit 0
