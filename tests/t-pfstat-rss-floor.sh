#!/bin/bash
# A run's maximum resident set, as wait4 gives it, is at least what its
# forked copy of pfstat held before exec.  pfstat measures that floor before
# each run and shows no maximum resident set that is not clearly above it:
# a program with almost none of its own (no C library) gets "n/a" and a
# warning, null in JSON (and so does a figure within 256 KiB of the floor,
# which pfstat measures to a few 64 KiB windows), where pfstat printed its
# own floor (576 KiB at one
# run, 1048 at the median of 3000, up to 2812 after 20000: the runs'
# figures grew in pfstat's memory).  The floor no longer grows with the
# runs, and a program that holds 4 MiB shows 4 MiB and a little more.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need python3
pfstat_asan && skip "pfstat is built with AddressSanitizer: a run's maximum resident set starts from ASan's own"

gcc -O1 -static -nostdlib -fno-stack-protector -o nolibc "$TESTDIR/pfstat-nolibc.c" || skip "cannot link a static program without the C library"
run_ok small.out "$PF" -n 3 -- ./nolibc
expect_grep "^max RSS \(KiB\) +n/a +\(below pfstat's own floor\)$" small.out "the maximum resident set of nolibc"
expect_grep "^pfstat: warning: max RSS of \./nolibc is not shown: in 3 of 3 runs it was no more than 256 KiB above the [0-9]+ KiB that pfstat's forked copy held before exec" \
	small.out.err "the warning"

# the floor of the last 100 of 1000 runs is that of the first 100 (after
# the first run, which comes before pfstat's memory is all in use), with 16
# --cold files: 216 bytes of figures a run, 216 KiB in all; nolibc's
# figure not shown (a run now and then is: one of 1000 read 784 KiB over a
# floor of 496 in a make check, more than 256 KiB above it; when pfstat
# showed its own floor, every run was)
cold=()
for i in $(seq 16); do
	head -c 4096 /dev/urandom > cold$i
	cold+=(--cold cold$i)
done
run_ok many.json "$PF" -n 1000 "${cold[@]}" --format=json -- ./nolibc
python3 - many.json <<'EOF2' || fail "JSON: $(head -c 300 many.json)"
import json, statistics, sys
s = json.load(open(sys.argv[1]))["series"][0]
shown = [v for v in s["max_rss_kib"]["values"] if v is not None]
assert s["max_rss_kib"]["median"] is None and len(shown) <= 10, (s["max_rss_kib"]["median"], shown[:20])
floor = s["max_rss_floor_kib"]["values"]
early, late = statistics.median(floor[1:101]), statistics.median(floor[-100:])
assert len(floor) == 1000 and late <= early + 32, (early, late)
EOF2

# a program that holds 4 MiB: its own figure, above the floor
run_ok heap.json "$PF" -n 3 --format=json -- ./probe heap 4096
python3 - heap.json <<'EOF2' || fail "JSON: $(head -c 600 heap.json)"
import json, sys
s = json.load(open(sys.argv[1]))["series"][0]
rss = s["max_rss_kib"]
assert rss["median"] is not None and 4096 <= rss["min"] and rss["max"] <= 4096 + 3072, rss
EOF2
exit 0
