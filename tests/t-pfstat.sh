#!/bin/bash
# pfstat measures what it says: a program that touches 2000 fresh pages
# shows at least 2000 minor faults; a file read whole after --cold evicted
# it shows all its pages read, on every run; a failing run fails pfstat;
# --compare prints the ratio; JSON parses; --pid ends with the process; the
# read-ahead of the file's device is named when it covers the whole file;
# as root, --read-ahead-kb measures through a loop device with that
# read-ahead (its read counts exactly the file's pages) and leaves no loop
# device or mount behind.
. "$(dirname "$0")/lib.sh"
need gcc python3
PF=$TOP/pfstat/pfstat
[[ -x $PF ]] || fail "pfstat is not built"

cat > touch.c <<'EOF2'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long i, sum = 0;
	if (argc > 1) {          /* read a file whole through a mapping */
		int fd = open(argv[1], O_RDONLY);
		struct stat st;
		fstat(fd, &st);
		unsigned char *p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		for (i = 0; i < st.st_size; i += 4096)
			sum += p[i];
		printf("%ld\n", sum);
		return 0;
	}
	char *m = mmap(NULL, 2000L * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (i = 0; i < 2000; i++)
		m[i * 4096] = 1;
	return 0;
}
EOF2
gcc -O1 -o touch touch.c || fail "compile"
"$PF" -n 3 -- ./touch > out 2> err || fail "pfstat: $(cat err)"
minor=$(awk '/^minor faults/ { print int($3) }' out)
((minor >= 2000)) || fail "minor faults: $minor, fewer than the 2000 pages touched: $(cat out)"
expect_grep '^wall \(ms\) ' out "the wall time"

# a file read whole: every page of it read in, on each run (it is evicted first)
head -c $((300 * 4096)) /dev/urandom > data
"$PF" -n 3 --cold data -- ./touch data > cold.out 2> cold.err || fail "pfstat --cold: $(cat cold.err)"
read -r med lo hi <<< "$(awk '/^  pages read/ { print $3, $4, $5 }' cold.out)"
[[ ${lo%.*} = 300 && ${hi%.*} = 300 ]] || fail "pages of data read: $lo to $hi, not 300 on every run: $(cat cold.out)"
# on a device that reads ahead as much as the file: said so
if grep -q 'reads ahead' cold.err; then
	expect_grep 'whole file.*--read-ahead-kb' cold.err "the read-ahead warning"
fi

# a failing run fails pfstat
if "$PF" -- sh -c 'exit 3' > fail.out 2> fail.err; then
	fail "pfstat exited 0 on a command that failed"
fi
expect_grep 'exit status 3' fail.err "the failure"
[[ -s fail.out ]] && fail "figures printed for a failed run: $(cat fail.out)"

# --compare and JSON
"$PF" -n 2 --compare './touch data' --format=json -- ./touch > cmp.json 2> err || fail "pfstat --compare: $(cat err)"
python3 - cmp.json <<'EOF2' || fail "JSON: $(head -c 400 cmp.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "linkopt-pfstat" and d["format_version"] == 2
assert len(d["series"]) == 2 and all(s["runs"] == 2 for s in d["series"])
assert d["series"][0]["minor_faults"]["min"] >= 2000
EOF2

# --pid ends with the process, zombie or reaped
sleep 0.5 &
timeout 20 "$PF" --pid $! --interval 50 > pid.out 2>&1 || fail "pfstat --pid did not end with the process: $(tail -3 pid.out)"
wait

# a loop device with a realistic read-ahead (root)
if [[ $(id -u) = 0 ]] && command -v mkfs.ext4 > /dev/null && [[ -e /dev/loop-control ]]; then
	. "$TESTDIR/pfstat-lib.sh"
	sum=$(cksum < data)
	run_ok loop.out "$PF" -n 2 --cold data --read-ahead-kb=16 -- ./touch data
	expect_grep '^device loop[0-9]+ \(read-ahead 16 KiB\): data$' loop.out "the loop device"
	requests=$(awk '/^  read requests/ { print int($3) }' loop.out)
	# 300 pages read 16 KiB at a time: many requests, not a handful
	((requests >= 10)) || fail "read requests through a 16 KiB read-ahead: $requests: $(cat loop.out)"
	# the device is the file's own: it read the file's pages, no more
	expect_grep '^  sectors read +2400\.0 +2400\.0 +2400\.0$' loop.out "300 pages read: 2400 sectors"
	expect_loop_gone "$(loop_of loop.out)"
	grep -q " $PWD/data " /proc/self/mountinfo && fail "a mount over data was left"
	[[ $(cksum < data) = "$sum" ]] || fail "the file changed"
else
	echo "--read-ahead-kb not tested: needs root, mkfs.ext4 and /dev/loop-control"
fi
exit 0
