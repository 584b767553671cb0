#!/bin/bash
# linkopt-prefetch.o reads the same pages whatever the device's largest
# request: of one MADV_WILLNEED the kernel reads at most the larger of
# max_sectors_kb and read_ahead_kb, 1280 KiB on a loop device here, 128 KiB
# or less on CI's machines, where a cold-start layout whose prefetch asked
# for 51 pages at once read 19 fewer than the model said (t-startup-best:
# 117 measured, 136 predicted).  A program whose start-up runs the head and
# the tail of a 200 KiB function, placed by deporder --placement=cold-start
# and linked with linkopt-prefetch.o, started cold from an ext4 image on a
# loop device of the test's own at max_sectors_kb 1280, 128 and 64: each
# time the pages pagein-report's model predicts from its trace, the most
# frequent figure of five runs.  Needs root and a free loop device, and the
# page cache the model follows (Linux 6.16 and later); skipped otherwise.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need_coldstart_loop
need_prefetch

cat > main.c <<'EOF'
#include <stdio.h>
/* start-up runs its head and its tail, never the 200 KiB between them:
   the prefetch reads them all the same */
__attribute__((noinline)) int big(int x)
{
	if (x > 1000)
		__asm__ volatile (".skip 204800, 0x90");
	return x + 1;
}
__attribute__((noinline)) int cold(int x)
{
	__asm__ volatile (".skip 409600, 0x90");
	return x - 1;
}
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", big(argc) + (argc > 5 ? cold(argc) : 0));
	return 0;
}
EOF
gcc -O2 -ffunction-sections -fdata-sections -c main.c || fail "compile"
gcc -o prog main.o -Wl,-Map=prog.map || fail "the default link"
"$PAGEIN" --granularity=function --output="$PWD/trace" -- ./prog > want.out 2> pagein.err ||
	fail "pagein: $(head -3 pagein.err)"
deporder_ok cold.ld cold.err -q --granularity=section --placement=cold-start --emit=gnu-ld \
	--trace trace --map prog.map --cc -- gcc -o prog main.o
gcc -o pf main.o "$prefetch" -Wl,-T,cold.ld || fail "the link with the order and linkopt-prefetch.o"
read -r hot_start hot_end < <(nm pf | awk '$3 == "__linkopt_hot_start" { s = $1 } $3 == "__linkopt_hot_end" { e = $1 }
	END { print s, e }')
[[ -n $hot_start && -n $hot_end ]] || fail "pf has no __linkopt_hot_start/__linkopt_hot_end: nothing to prefetch"
(( (0x$hot_end - 0x$hot_start) / 4096 > 32 )) ||
	fail "the prefetched range is $(( (0x$hot_end - 0x$hot_start) / 4096 )) pages: not more than one 128 KiB request"
"$PAGEIN" --granularity=function --output="$PWD/pf.trace" -- ./pf > got.out 2> pagein.err ||
	fail "pagein on pf: $(head -3 pagein.err)"
expect_same want.out got.out "pf's output"
run_ok report.out "$PAGEIN" report --read-ahead-kb 128 pf.trace
predicted=$(awk -v p="$PWD/pf" '$1 == p { n = split($0, f, " "); print f[n - 1] }' report.out)
[[ $predicted =~ ^[0-9]+$ ]] || fail "pagein-report names no cold start of pf: $(cat report.out)"

gcc -O2 -o coldstart "$TOP/bench/lib/coldstart.c" || fail "cannot compile bench/lib/coldstart.c"
coldstart_mount
cp pf mnt/ && sync
for kb in 1280 128 64; do
	# (a new max_sectors_kb sets read_ahead_kb anew: it comes second)
	echo "$kb" > "$queue/max_sectors_kb" || fail "cannot set max_sectors_kb of $loop to $kb"
	echo 128 > "$queue/read_ahead_kb" || fail "cannot set read_ahead_kb of $loop"
	[[ $(< "$queue/max_sectors_kb") == "$kb" && $(< "$queue/read_ahead_kb") == 128 ]] ||
		fail "$loop has max_sectors_kb $(< "$queue/max_sectors_kb") and read_ahead_kb $(< "$queue/read_ahead_kb")"
	./coldstart mnt/pf -- mnt/pf > /dev/null || fail "the cold run of pf"
	for run in 1 2 3 4 5; do
		./coldstart --map mnt/pf -- mnt/pf a || fail "the cold run of pf"
	done > runs.$kb
	pages=$(awk '!/^map/ { print $2 }' runs.$kb | sort | uniq -c | sort -k1,1nr -k2,2nr | awk 'NR == 1 { print $2 }')
	[[ $pages == "$predicted" ]] ||
		fail "at max_sectors_kb $kb a cold start of pf read $pages pages, the model predicts $predicted; pages read: $(grep -m1 '^map' runs.$kb)"
done
echo "pf: $predicted pages read at max_sectors_kb 1280, 128 and 64, as predicted"
exit 0
