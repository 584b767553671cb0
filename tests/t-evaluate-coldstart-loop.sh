#!/bin/bash
# deporder --evaluate's cold start against the kernel: prog and the link of
# its order, on an ext4 image attached to a loop device with direct I/O,
# evicted and run at 0, 16, 64 and 128 KiB of read-ahead; the pages of
# each file resident after the run (mincore) and the reads the loop device
# completed, the most frequent figures of five runs.  The prediction for the traced link must be exact, pages and
# requests; the one for the order (from the default link's trace, nothing
# relinked) within 10% (a few pages of this small program).  Needs root and
# a free loop device, and the page cache the model follows (Linux 6.16 and
# later); skipped otherwise.
. "$TESTDIR/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
[[ $(id -u) == 0 ]] || skip "needs root, to attach a loop device and mount it"
need losetup mkfs.ext4 mount umount
[[ -e /dev/loop-control ]] || skip "no loop devices (/dev/loop-control missing)"
IFS=.- read -r major minor _ <<< "$(uname -r)"
(( major > 6 || (major == 6 && minor >= 16) )) ||
	skip "the model follows the page cache of Linux 6.16 and later; this is $(uname -r)"

coldstart_program
gcc -O2 -o coldstart "$TOP/bench/lib/coldstart.c" || fail "cannot compile bench/lib/coldstart.c"
truncate -s 16M image
mkfs.ext4 -q -F image || fail "mkfs.ext4"
loop=$(losetup --find --show --direct-io=on image 2> losetup.err) || skip "no free loop device: $(cat losetup.err)"
mounted=no
cleanup() {
	[[ $mounted == yes ]] && { umount mnt || umount -l mnt; }
	losetup -d "$loop"
}
trap cleanup EXIT
mkdir mnt
mount -o noatime "$loop" mnt || fail "cannot mount $loop"
mounted=yes
cp prog ordered mnt/ && sync
stat=/sys/block/${loop#/dev/}/stat
for kb in 0 16 64 128; do
	echo "$kb" > "/sys/block/${loop#/dev/}/queue/read_ahead_kb" || fail "cannot set read_ahead_kb of $loop"
	read -r p_now p_ordered r_now r_ordered <<< "$(predict "$kb")"
	for b in prog ordered; do
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
		else
			(( p_ordered * 10 >= pages * 9 && p_ordered * 10 <= pages * 11 )) ||
				fail "$kb KiB: predicted $p_ordered pages for the order, the relink read $pages"
		fi
	done
done
exit 0
