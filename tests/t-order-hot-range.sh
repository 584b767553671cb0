#!/bin/bash
# The traced range of deporder's GNU ld script (__linkopt_hot_start ..
# __linkopt_hot_end, what linkopt-prefetch.o asks the kernel to read) holds
# the code the trace ran and what runs at every exit (.fini), nothing
# else; linkopt-prefetch.o's constructor is on a page of its own before
# it (prefetch_apart): a data object a trace
# named (an O record) that the traced code also refers to is one traced
# section, not two, so the script's hot end does not come after as many
# untraced functions as there were such objects.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein

coldstart_program
gcc -o prefetch main.o work.o "$TOP/prefetch/linkopt-prefetch.o" -Wl,-T,order.ld || fail "the link with prefetch"
./prefetch > got.out || fail "the relinked program"
expect_same want.out got.out "the relinked program's output"
address() { nm prefetch | awk -v s="$1" '$3 == s { print "0x" $1; exit }'; }
start=$(address __linkopt_hot_start) end=$(address __linkopt_hot_end)
[[ -n $start && -n $end ]] || fail "nm finds no __linkopt_hot_start or __linkopt_hot_end in the relinked program"
nm -n prefetch | awk '$2 ~ /^[tT]$/ { print "0x" $1, $3 }' > functions.txt
while read -r a name; do
	((a >= start && a < end)) || continue
	case $name in
	main | h[0-9] | g9 | g17 | _start | _fini | linkopt_prefetch | prefetch | __linkopt_hot_*) ;;
	deregister_tm_clones | register_tm_clones | __do_global_dtors_aux | frame_dummy) ;; # crtbeginS.o's
	*) fail "$name at $a, which the trace did not run, is in the traced range $start-$end" ;;
	esac
done < functions.txt
for name in h0 g17 _fini; do
	grep -q " $name\$" functions.txt || fail "nm finds no $name"
	a=$(awk -v s="$name" '$2 == s { print $1 }' functions.txt)
	((a >= start && a < end)) || fail "$name at $a is outside the traced range $start-$end"
done
prefetch_apart prefetch
exit 0
