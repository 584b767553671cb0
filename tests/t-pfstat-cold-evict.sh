#!/bin/bash
# pfstat --cold proves that the file left the page cache before a run
# (mincore after posix_fadvise) and refuses to measure when it did not,
# saying why: a process that maps the file (named, with its pid), or a
# tmpfs, whose pages are the file.  Before, it reported the pages that
# never left as "pages read": 64 of a 64-page file mapped by another
# process, and every page of a file on tmpfs that the command never read.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup

head -c $((64 * 4096)) /dev/urandom > data
./probe map data 60 > holder.out &
holder=$!
at_exit "kill $holder 2> /dev/null; wait $holder 2> /dev/null"
for i in $(seq 50); do
	[[ -s holder.out ]] && break
	sleep 0.1
done
[[ $(cat holder.out) == ready ]] || fail "the process that maps data did not start"
expect_exit 1 mapped.out "$PF" -n 3 --cold data -- ./probe read data
expect_empty mapped.out "the figures of a run that could not be cold"
expect_grep "^pfstat: data: 64 of its 64 pages stay in the page cache after posix_fadvise\(DONTNEED\): mapped by process $holder \(probe\); a mapped page is never evicted: end it or measure a copy; a cold run cannot be measured$" \
	mapped.out.err "the refusal"
kill "$holder"
wait "$holder" 2> /dev/null

# once nothing maps it, the same measurement runs: 64 pages read, each run
run_ok free.out "$PF" -n 3 --cold data -- ./probe read data
[[ $(field free.out "pages read" 2) == 64.0 && $(field free.out "pages read" 3) == 64.0 ]] ||
	fail "pages read of a 64-page file read whole: $(cat free.out)"

# a tmpfs keeps a file's pages: there is nothing a cold start reads
shm=/dev/shm
if [[ -d $shm && -w $shm ]] && [[ $(stat -f -c %T "$shm") == tmpfs ]]; then
	file=$(mktemp "$shm/pfstat-test.XXXXXX")
	at_exit "rm -f '$file'"
	head -c $((10 * 4096)) /dev/urandom > "$file"
	expect_exit 1 tmpfs.out "$PF" --cold "$file" -- true
	expect_empty tmpfs.out "the figures of a run on tmpfs"
	expect_grep "^pfstat: $file: 10 of its 10 pages stay in the page cache after posix_fadvise\(DONTNEED\): it is on a tmpfs or ramfs, where a file's pages are the file: nothing is read at a cold start; a cold run cannot be measured$" \
		tmpfs.out.err "the refusal on tmpfs"
else
	echo "the tmpfs case not tested: no writable tmpfs at $shm"
fi
exit 0
