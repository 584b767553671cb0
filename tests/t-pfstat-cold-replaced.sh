#!/bin/bash
# pfstat --cold refuses the figures of a run that replaced the file (a
# rebuild: a new file renamed over it) or changed its size: the pages read
# it would print are another file's, or of other content.  Before, it
# printed the new file's pages as the measured file's.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup

head -c $((8 * 4096)) /dev/urandom > data
expect_exit 1 replaced.out "$PF" --cold data -- sh -c 'cp data data.new && mv data.new data'
expect_grep '^pfstat: data: replaced by another file during the run: its pages read would not be the measured file'"'"'s$' \
	replaced.out.err "the refusal of a replaced file"
expect_empty replaced.out "the figures of a run that replaced the file"

expect_exit 1 grown.out "$PF" --cold data -- sh -c 'echo more >> data'
expect_grep '^pfstat: data: changed size during the run: its pages read would not be the measured file'"'"'s$' \
	grown.out.err "the refusal of a file that grew"
expect_empty grown.out "the figures of a run that changed the file"
exit 0
