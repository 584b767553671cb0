#!/bin/bash
# deporder --evaluate's cold start against the kernel: prog, the link of
# its order, and at each size the link of its --placement=cold-start for
# that size, on an ext4 image attached to a loop device with direct I/O,
# evicted and run at 0, 8, 16, 64 and 128 KiB of read-ahead; the pages of
# each file resident after the run (mincore) and the reads the loop device
# completed, the most frequent figures of five runs.  The prediction for the traced link must be exact, pages and
# requests; the ones for the orders (from the default link's trace, nothing
# relinked) within 10% (a few pages of this small program).  Needs root and
# a free loop device, and the page cache the model follows (Linux 6.16 and
# later); skipped otherwise.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need_coldstart_loop

coldstart_program
sizes="0 8 16 64 128"
for kb in $sizes; do
	deporder_ok cold$kb.ld cold.err -q --granularity=section --placement=cold-start --read-ahead-kb=$kb --emit=gnu-ld \
		--trace trace --map prog.map --cc -- "${coldstart_link[@]}"
	gcc -o cold$kb main.o work.o -Wl,-T,cold$kb.ld || fail "the link of the cold-start placement for $kb KiB"
	expect_output want.out got.out "cold$kb's output" ./cold$kb
done
gcc -O2 -o coldstart "$TOP/bench/lib/coldstart.c" || fail "cannot compile bench/lib/coldstart.c"
coldstart_mount
cp prog ordered cold* mnt/ && sync
stat=/sys/block/${loop#/dev/}/stat
for kb in $sizes; do
	echo "$kb" > "$queue/read_ahead_kb" || fail "cannot set read_ahead_kb of $loop"
	read -r p_now p_ordered r_now r_ordered <<< "$(predict "$kb")"
	deporder_ok cold.out cold.err -q --granularity=section --evaluate --placement=cold-start --read-ahead-kb="$kb" \
		--trace trace --map prog.map --cc -- "${coldstart_link[@]}"
	p_cold=$(awk 'NR == 2 { print $7 }' cold.out)
	for b in prog ordered cold$kb; do
		./coldstart mnt/$b -- mnt/$b > /dev/null || fail "the cold run of $b"
		# the most frequent of five runs: a busy machine may fail some of the
		# allocations of a read-ahead, which then reads less
		for run in 1 2 3 4 5; do
			./coldstart --block-stat="$stat" mnt/$b -- mnt/$b || fail "the cold run of $b"
		done | awk '{ print $2, $4 }' | sort | uniq -c | sort -k1,1nr -k2,2nr > runs.txt
		read -r _ pages reads < runs.txt
		[[ -n $reads ]] || fail "coldstart gave no figures for $b"
		if [[ $b == prog ]]; then
			[[ $p_now == "$pages" && $r_now == "$reads" ]] ||
				fail "$kb KiB: predicted $p_now pages in $r_now requests for prog, measured $pages in $reads"
		elif [[ $b == ordered ]]; then
			(( p_ordered * 10 >= pages * 9 && p_ordered * 10 <= pages * 11 )) ||
				fail "$kb KiB: predicted $p_ordered pages for the order, the relink read $pages"
		else
			(( p_cold * 10 >= pages * 9 && p_cold * 10 <= pages * 11 )) ||
				fail "$kb KiB: predicted $p_cold pages for the cold-start placement, the relink read $pages"
		fi
	done
done
exit 0
