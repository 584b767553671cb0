#!/bin/bash
# pfstat --cold counts the pages a run asked to be read ahead and did not
# wait for: a program that asks for 1 MiB of a file (fadvise WILLNEED, in
# 64 KiB pieces, as linkopt-prefetch.o does) and exits at once, its reads
# slowed to 512 KiB/s (a blkio cgroup of the test's own, on every loop
# device), still read its 256 pages: at least 192 are counted (a
# throttled device drops a few read-ahead pages, best effort: 234 to 256
# here, even when the program waits for them).  pfstat counted with mincore as soon
# as the command ended, and mincore counts a page only once its read
# completed: the old pfstat said a few pages (CI, under load, 19 pages
# short on linkopt-prefetch.o's range).  It waits until every page of the
# file in the page cache has been read (cachestat against mincore).  So
# does bench/lib/coldstart.c, the tests' and bench/coldstart's cold start
# of a file in place (its device throttled the same way).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need_loop
blkio=/sys/fs/cgroup/blkio
[[ -w $blkio/cgroup.procs && -e $blkio/blkio.throttle.read_bps_device ]] ||
	skip "needs the cgroup v1 blkio controller's throttle (/sys/fs/cgroup/blkio)"

cat > ask.c <<'EOF2'
#include <fcntl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDONLY);
	off_t at;

	(void)argc;
	for (at = 0; at < 1 << 20; at += 65536)
		posix_fadvise(fd, at, 65536, POSIX_FADV_WILLNEED);
	return 0;
}
EOF2
gcc -O1 -o ask ask.c || fail "cannot compile ask.c"
head -c $((1 << 20)) /dev/urandom > data

group=$blkio/linkopt-test-$$
mkdir "$group" || fail "cannot make $group"
at_exit "rmdir '$group' 2> /dev/null || true"
throttled=()
for q in /sys/block/loop*; do
	n=$(cat "$q/dev") || continue
	echo "$n 524288" > "$group/blkio.throttle.read_bps_device" 2> /dev/null && throttled+=("${q##*/}")
done
((${#throttled[@]})) || skip "no loop device to throttle"
# the command moves itself into the group, then asks and exits
cat > run.sh <<EOF2
echo \$\$ > '$group/cgroup.procs' && exec ./ask data
EOF2
run_ok run.json "$PF" -n 1 --cold data --read-ahead-kb=128 --format=json -- sh run.sh
device=$(sed -n 's/.*"devices": \[{"device": "\([a-z0-9]*\)".*/\1/p' run.json)
[[ " ${throttled[*]} " == *" $device "* ]] ||
	skip "pfstat's loop device ($device) was made after the test throttled ${throttled[*]}"
pages=$(sed -n 's/.*"pages_read": {"median": \([0-9]*\).*/\1/p' run.json)
[[ -n $pages ]] && ((pages >= 192)) ||
	fail "a run that asked for 1 MiB and exited read $pages pages, not 192 to 256: $(cat run.json)"
# and the reads were slow: they came in well after the command ended
wall=$(sed -n 's/.*"wall_ms": {"median": \([0-9]*\).*/\1/p' run.json)
((wall < 1000)) || fail "the command itself took $wall ms: the test lost its point (it must exit before its reads)"

# bench/lib/coldstart.c, the file in place on the test folder's device
dev=$(stat -c '%Hd:%Ld' data)
echo "$dev 524288" > "$group/blkio.throttle.read_bps_device" 2> /dev/null ||
	skip "cannot throttle reads from $dev, the test folder's device"
gcc -O2 -o coldstart "$TOP/bench/lib/coldstart.c" || fail "cannot compile bench/lib/coldstart.c"
run_ok in-place.out ./coldstart data -- sh run.sh
read -r wall resident total < in-place.out
[[ $total == 256 ]] && ((resident >= 192)) ||
	fail "coldstart: a run that asked for 1 MiB and exited read $resident of $total pages, not 192 to 256"
exit 0
