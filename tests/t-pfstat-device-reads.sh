#!/bin/bash
# pfstat --cold gives a device's read counts to the --cold files on it only
# when they can be theirs: a run in which the device read more than the
# pages of those files that came in (here the command also reads 8 MiB of
# another file on the same device, with O_DIRECT, past the page cache) has
# no read requests or sectors: "n/a" in the report and in that run's row,
# null in JSON, and a warning says how many runs and how much more.  Before,
# the device's whole count was printed as the file's: 16,000 sectors and
# more for a 4-page file.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup
need dd python3

head -c $((4 * 4096)) /dev/urandom > small
head -c $((8 << 20)) /dev/urandom > other
[[ -e /sys/dev/block/$(stat -c '%Hd:%Ld' small) ]] || skip "the test folder is on no block device (tmpfs?)"
dd if=other of=/dev/null bs=1M iflag=direct 2> /dev/null || skip "O_DIRECT reads do not work here"
dev=$(basename "$(readlink -f "/sys/dev/block/$(stat -c '%Hd:%Ld' small)")")

cmd=(sh -c 'cat small > /dev/null && dd if=other of=/dev/null bs=1M iflag=direct 2> /dev/null')
run_ok text.out "$PF" -n 3 --cold small -- "${cmd[@]}"
expect_grep "^  read requests +n/a +\(other reads on $dev\)$" text.out "the read requests of a run that read another file"
expect_grep "^  sectors read +n/a +\(other reads on $dev\)$" text.out "the sectors of a run that read another file"
expect_grep "^  pages read +4\.0 +4\.0 +4\.0$" text.out "the pages read of small"
expect_grep "^pfstat: warning: $dev: its read counts are not shown for sh -c .*: in 3 of 3 runs the device read up to [0-9]+ sectors more than the pages of small that came in \(other reads: a shared disk\); --read-ahead-kb gives the files a device of their own$" \
	text.out.err "the warning"
# every run's row says n/a for the device, the pages are there
[[ $(grep -Ec "^ +[123] .* 4 +n/a +n/a$" text.out) == 3 ]] || fail "the runs' rows: $(cat text.out)"

run_ok json.out "$PF" -n 3 --cold small --format=json -- "${cmd[@]}"
python3 - json.out <<'EOF2' || fail "JSON: $(head -c 600 json.out)"
import json, sys
d = json.load(open(sys.argv[1]))["series"][0]
dev = d["devices"][0]
assert dev["others"] is True and dev["other_sectors_max"] >= 16000, dev
assert dev["read_requests"]["median"] is None and dev["sectors_read"]["median"] is None, dev
assert dev["read_requests"]["values"] == [None, None, None], dev
assert d["cold"][0]["pages_read"]["values"] == [4, 4, 4], d["cold"]
EOF2
exit 0
