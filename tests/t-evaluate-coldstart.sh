#!/bin/bash
# deporder --evaluate's cold start, without read-ahead (--read-ahead-kb=0),
# where every page read is a page touched: for the traced link, the pages
# of the file that the trace's code and data records touch (mapped to file
# offsets through readelf's program headers here, independently of
# deporder), page 0 (execve reads the ELF header) and the page where the
# data segment meets .bss (the kernel clears its tail): one read each.  For
# the order, predicted from the default link's trace alone, the same count
# made from the trace of the relinked program.  And --read-ahead-kb is for
# --evaluate only, a number of KiB.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need readelf

coldstart_program
file_pages trace "$PWD/prog" > now.pages
file_pages ordered.trace "$PWD/ordered" > ordered.pages
now=$(wc -l < now.pages) ordered=$(wc -l < ordered.pages)
# the program's pages beyond the headers: ld.so's reads of the relocations
# and dynamic symbols, code, .rodata, the relocated tables
(( now > 8 )) || fail "the trace touches only $now pages of prog: $(tr '\n' ' ' < now.pages)"

read -r p_now p_ordered r_now r_ordered <<< "$(predict 0)"
[[ $p_now == "$now" ]] ||
	fail "--read-ahead-kb=0: $p_now pages read predicted for prog, $now pages touched: $(tr '\n' ' ' < now.pages)"
[[ $r_now == "$now" ]] || fail "--read-ahead-kb=0: $r_now read requests predicted for prog, $now pages read one by one"
[[ $p_ordered == "$ordered" ]] ||
	fail "--read-ahead-kb=0: $p_ordered pages read predicted for the order, its relink touches $ordered: $(tr '\n' ' ' < ordered.pages)"
[[ $r_ordered == "$ordered" ]] || fail "--read-ahead-kb=0: $r_ordered read requests predicted for the order, $ordered expected"

# With read-ahead a fault reads more than its page, never less.
read -r p_now p_ordered r_now r_ordered <<< "$(predict 64)"
(( p_now > now && p_ordered > ordered && r_now < now && r_ordered < ordered )) ||
	fail "--read-ahead-kb=64: $p_now and $p_ordered pages in $r_now and $r_ordered requests, against $now and $ordered pages touched"

run_deporder out err --read-ahead-kb=64 --granularity=section --trace trace --map prog.map --cc -- "${coldstart_link[@]}"
expect_status 2 "--read-ahead-kb without --evaluate"
expect_grep "read-ahead-kb is for --evaluate" err
for bad in -1 x 1048577 ""; do
	run_deporder out err --evaluate --read-ahead-kb="$bad" --granularity=section --trace trace --map prog.map \
		--cc -- "${coldstart_link[@]}"
	expect_status 2 "--read-ahead-kb='$bad'"
done
exit 0
