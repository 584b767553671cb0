#!/bin/bash
# pfstat --cold takes regular files, each once: a FIFO is refused at once
# (before, pfstat opened it for reading and waited forever for a writer),
# so are a folder and a file given twice (under two names), with exit
# status 1 and a message that says what the path is.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup

mkfifo fifo
RUN_TIMEOUT=20 expect_exit 1 fifo.out "$PF" --cold fifo -- true
expect_grep "^pfstat: fifo: --cold needs a regular file, this is a FIFO: only a regular file's pages are read from a device into the page cache$" \
	fifo.out.err "the refusal of a FIFO"
expect_empty fifo.out "the figures of a FIFO"

mkdir folder
expect_exit 1 folder.out "$PF" --cold folder -- true
expect_grep "^pfstat: folder: --cold needs a regular file, this is a folder" folder.out.err "the refusal of a folder"

head -c 8192 /dev/urandom > data
ln -s data link
expect_exit 1 twice.out "$PF" --cold data --cold link -- true
expect_grep "^pfstat: link: the same file as data, given to --cold twice$" twice.out.err "the refusal of a file given twice"

run_ok once.out "$PF" --cold data -- true
expect_grep "^cold: data \(2 pages[;)]" once.out "a regular file, once"
exit 0
