# bench/lib/colddisk.sh: a disk with the kernel's default read-ahead for
# measuring cold starts (sourced by bench scripts; bench/coldstart/run
# has its own, with a sweep of read-ahead sizes).  An ext4 image on a loop
# device with direct I/O, read_ahead_kb 128; each run evicts the measured
# file (bench/lib/coldstart.c) and counts its pages resident after the run
# (mincore), the reads the loop device completed and the wall time.
#
# colddisk_setup WORK: makes WORK/colddisk.img, mounts it on WORK/colddisk
#   (COLDDISK), compiles WORK/coldstart; returns 1, saying why, when it
#   cannot (not root, no loop device, no mkfs.ext4).  colddisk_teardown
#   undoes it (the caller's EXIT trap must call it).
# colddisk_run FILE -- COMMAND...: one cold run; prints "US PAGES READS".

colddisk_loop=
colddisk_mounted=no

colddisk_setup() {
	local work=$1 name
	[[ $(id -u) == 0 ]] || { echo "cold start not measured: needs root (a loop device)" >&2; return 1; }
	for tool in losetup mkfs.ext4 mount umount; do
		command -v $tool > /dev/null || { echo "cold start not measured: needs $tool" >&2; return 1; }
	done
	[[ -e /dev/loop-control ]] || { echo "cold start not measured: no loop devices (modprobe loop)" >&2; return 1; }
	gcc -O2 -o "$work/coldstart" "$TOP/bench/lib/coldstart.c" || return 1
	truncate -s 160M "$work/colddisk.img" && mkfs.ext4 -q -F "$work/colddisk.img" || return 1
	colddisk_loop=$(losetup --find --show --direct-io=on "$work/colddisk.img") ||
		{ echo "cold start not measured: no free loop device" >&2; return 1; }
	name=${colddisk_loop#/dev/}
	[[ $(cat "/sys/block/$name/loop/dio" 2> /dev/null) == 1 ]] ||
		{ echo "cold start not measured: $colddisk_loop refuses direct I/O" >&2; colddisk_teardown; return 1; }
	mkdir -p "$work/colddisk"
	mount -o noatime "$colddisk_loop" "$work/colddisk" || { colddisk_teardown; return 1; }
	colddisk_mounted=yes
	echo 128 > "/sys/block/$name/queue/read_ahead_kb"
	COLDDISK=$work/colddisk
	COLDDISK_STAT=/sys/block/$name/stat
	COLDDISK_TOOL=$work/coldstart
	COLDDISK_DEVICE=$colddisk_loop
}

colddisk_teardown() {
	[[ $colddisk_mounted == yes ]] && { umount "$COLDDISK" || umount -l "$COLDDISK" || true; }
	colddisk_mounted=no
	[[ -n $colddisk_loop ]] && { losetup -d "$colddisk_loop" || true; }
	colddisk_loop=
}

colddisk_run() {
	local file=$1 line us resident total reads sectors
	shift 2
	line=$("$COLDDISK_TOOL" --block-stat="$COLDDISK_STAT" "$file" -- "$@") || return 1
	read -r us resident total reads sectors <<< "$line"
	echo "$us $resident $reads"
}
