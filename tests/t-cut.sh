#!/bin/bash
# linkopt cut: the code after the traced code cut into mappings of its own
# at start-up by linkopt-prefetch.o's constructor (madvise on every other
# piece; a fault in an executable mapping reads ahead to its mapping's end
# at most), recorded in the linked file.  On SQLite's shell, BOLT's layout
# cut into 4 KiB pieces read 156.0 pages held out against 245.5 not cut
# (bench/split/run).  A program with 40 untraced functions of 8 KiB and a
# GNU ld order with linkopt-prefetch.o: cut (-o, the ordered file
# untouched), it prints the same, with and without calling one; a run
# calling cold20 is predicted to read its piece (one page), where the file
# not cut reads a window; as root, a cold start from a loop device reads
# what the model predicts, and less than the file not cut.  --clear
# empties the record (the model back to the window).  A record written
# wrong (a piece that is no multiple of the page, a range backwards) does
# nothing: the program still runs as before.  Warm, resident pieces stay
# one mapping (maps-at-exit.so counts them); cold on a loop device, the
# pieces not yet read are cut apart, and every piece when the user running
# it neither owns the file nor may write it (mincore does not say; root
# without CAP_FOWNER and CAP_DAC_OVERRIDE neither).  A cut whose own code is in
# the range it cuts (it faults a window in before it can cut) is said
# with a warning.  Refused: a file without the
# record (not linked with linkopt-prefetch.o; stripped), a size that is no
# multiple of 4 KiB (usage).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need_prefetch
LINKOPT=$TOP/linkopt-report/linkopt
[[ -x $LINKOPT ]] || fail "linkopt is not built"

untraced_program
gcc -O2 -ffunction-sections -fdata-sections -c prog.c || fail "compile"
gcc -o prog prog.o -Wl,-Map=prog.map || fail "the default link"
"$PAGEIN" --granularity=function --output="$PWD/trace" -- ./prog > want.out 2> pagein.err ||
	fail "pagein: $(head -3 pagein.err)"
./prog 20 > want20.out || fail "prog 20"
deporder_ok order.ld order.err -q --granularity=section --placement=head --emit=gnu-ld \
	--trace trace --map prog.map --cc -- gcc -o prog prog.o
gcc -o ordered prog.o "$prefetch" -Wl,-T,order.ld || fail "the ordered link"
cp ordered ordered.before
run_ok cut.out "$LINKOPT" cut --kb 4 -o cut ordered
expect_grep '^cut: 0x[0-9a-f]*-0x[0-9a-f]* cut into [0-9]* mappings of 4 KiB at start-up$' cut.out
cmp -s ordered ordered.before || fail "linkopt cut -o changed its input"
for n in ordered cut; do
	expect_output want.out got.out "$n's output" ./$n
	expect_output want20.out got20.out "$n's output, calling cold20" ./$n 20
done

expect_no_grep . cut.out.err "linkopt cut's messages, the cut's own code in the traced range"

# warm (the file read whole, every page in the page cache), a fault reads
# nothing: the cut leaves the resident pieces one mapping, so that
# fault-around maps them as if not cut (every piece a mapping of its own
# cost SQLite's shell 1.21x the minor faults of a warm run)
gcc -O2 -shared -fPIC -o maps-at-exit.so "$TESTDIR/maps-at-exit.c" || fail "cannot compile maps-at-exit.c"
here=$(pwd -P)   # as /proc/PID/maps names the files
for n in ordered cut; do
	cat $n > /dev/null
	LD_PRELOAD=$here/maps-at-exit.so MAPS_OUT=$here/$n.maps ./$n 20 > /dev/null || fail "./$n 20 with maps-at-exit.so"
	[[ -s $n.maps ]] || fail "maps-at-exit.so wrote no $n.maps"
done
warm_cut=$(maps_count cut cut.maps) warm_ordered=$(maps_count ordered ordered.maps)
((warm_ordered > 0)) || fail "no mapping of $here/ordered in ordered.maps: $(cat ordered.maps)"
((warm_cut <= warm_ordered + 2)) ||
	fail "warm, cut is $warm_cut mappings, ordered $warm_ordered: resident pieces cut apart: $(cat cut.maps)"
echo "warm: $warm_cut mappings of cut, $warm_ordered of ordered"

# the cut's own code inside the range it cuts (the traced code said to end
# at _init, the first byte of the executable segment, and the prefetch
# object linked first; so a link BOLT rewrote without its record filled,
# its cut left cold): a start-up faults a window in there before it can
# cut; it is cut, and said so
gcc -o early "$prefetch" prog.o -Wl,--defsym=__linkopt_hot_end=_init || fail "the link with an early end"
run_ok early.out "$LINKOPT" cut --kb 4 -o early.cut early
expect_grep "^linkopt: warning: early.cut: the cut's own code \(linkopt_prefetch at 0x[0-9a-f]+\) is in the range it cuts" \
	early.out.err
expect_output want.out got.out "early.cut's output" ./early.cut

# the model: the fault on cold20 reads its piece (one page) in cut, a
# window in ordered
reads_of_cold20() { # FILE: the pages the model's fault on cold20's page reads
	local f=$1 off
	"$PAGEIN" --granularity=function --output="$PWD/$f.20.trace" -- ./$f 20 > /dev/null 2> pagein.err ||
		fail "pagein on $f 20: $(head -3 pagein.err)"
	run_ok $f.requests "$PAGEIN" report --read-ahead-kb 128 --read-requests $f.20.trace
	off=$(file_offset_of "$f" cold20)
	[[ -n $off ]] || fail "cold20 of $f is in no segment"
	model_reads_at "$f" $((off / 4096))
}
got=$(reads_of_cold20 cut)
was=$(reads_of_cold20 ordered)
[[ $got == 1 ]] || fail "the model's fault on cold20 reads ${got:-no} pages in cut, not its 4 KiB piece: $(cat cut.requests)"
((${was:-0} > 4)) || fail "the model's fault on cold20 reads ${was:-no} pages in ordered, not a window"
echo "the fault on cold20 reads $got page cut, $was not cut"

# --clear: the record emptied, the model back to the window
cp cut cleared
run_ok clear.out "$LINKOPT" cut --clear cleared
expect_grep '^cleared: no cut$' clear.out
cleared=$(reads_of_cold20 cleared)
[[ $cleared == "$was" ]] || fail "cleared, the fault on cold20 reads ${cleared:-no} pages, not $was as before the cut"

# a record written wrong does nothing (the constructor checks it): a
# piece of 100 bytes, then a range that ends before it starts
off=$(cut_record_offset cut)
[[ -n $off ]] || fail "cut has no linkopt_cut record in a segment"
cp cut bad-piece && printf 'd\0\0\0\0\0\0\0' | dd of=bad-piece bs=1 seek=$((off + 32)) conv=notrunc status=none
cp cut backwards && dd if=cut of=backwards bs=1 skip=$((off + 16)) seek=$((off + 24)) count=8 conv=notrunc status=none &&
	dd if=cut of=backwards bs=1 skip=$((off + 24)) seek=$((off + 16)) count=8 conv=notrunc status=none
for n in bad-piece backwards; do
	cmp -s $n cut && fail "$n is the same file as cut: the test did not write its record"
	expect_output want20.out got20.out "$n's output, calling cold20" ./$n 20
done

# refused: no record (the default link; the cut file stripped), a size
# that is no multiple of 4 KiB
expect_exit 1 norecord.out "$LINKOPT" cut -o x prog
expect_grep 'cannot cut: no cut record in it' norecord.out.err
strip -o stripped cut
expect_exit 1 stripped.out "$LINKOPT" cut -o x stripped
expect_grep 'cannot cut: no cut record in it' stripped.out.err
[[ ! -e x ]] || fail "a refused cut wrote its output"
expect_exit 2 odd.out "$LINKOPT" cut --kb 6 -o x ordered
expect_grep 'is not a multiple of 4 from 4 to 1048576' odd.out.err

# as root, the kernel reads what the model predicts, less than not cut
((EUID == 0)) || exit 0
declare -A measured
cold_as_predicted 20 cut ordered
((measured[cut] < measured[ordered])) || fail "cut read ${measured[cut]} pages at a cold start, not less than ${measured[ordered]}"
# cold, the pieces not read yet when the constructor runs are cut apart
./coldstart mnt/cut -- env LD_PRELOAD="$here/maps-at-exit.so" MAPS_OUT="$here/cold.maps" mnt/cut 20 > /dev/null ||
	fail "the cold run of cut with maps-at-exit.so"
cold_cut=$(maps_count mnt/cut cold.maps)
((cold_cut > warm_ordered + 20)) || fail "cold, cut is $cold_cut mappings: its pieces not cut apart: $(cat cold.maps)"
echo "cold: $cold_cut mappings of cut"
# a user who neither owns the file nor may write it, to whom mincore
# answers every page resident (Linux 5.2 and later): cut all the same
as_nobody=(setpriv --reuid=nobody --regid="$(id -g nobody 2> /dev/null)" --clear-groups)
chmod o+x . mnt && chmod o+r maps-at-exit.so && chmod o+rx mnt/cut || fail "cannot open the test's folder to nobody"
if ! command -v setpriv > /dev/null || ! id nobody > /dev/null 2>&1; then
	echo "not run as nobody: no setpriv or no user nobody"
elif ! "${as_nobody[@]}" test -x mnt/cut; then
	echo "not run as nobody: nobody cannot reach $here (a folder above it is closed)"
else
	: > nobody.maps && chmod 666 nobody.maps
	./coldstart mnt/cut -- "${as_nobody[@]}" env LD_PRELOAD="$here/maps-at-exit.so" MAPS_OUT="$here/nobody.maps" \
		mnt/cut 20 > /dev/null || fail "the cold run of cut as nobody"
	nobody_cut=$(maps_count mnt/cut nobody.maps)
	((nobody_cut > warm_ordered + 20)) || fail "cold, run by nobody, cut is $nobody_cut mappings: not cut: $(cat nobody.maps)"
	echo "cold, run by nobody: $nobody_cut mappings of cut"
	# root without CAP_FOWNER and CAP_DAC_OVERRIDE, the file nobody's:
	# told every page resident all the same (not trusted for its uid)
	if ! setpriv --bounding-set=-fowner,-dac_override true 2> /dev/null; then
		echo "not run as root without CAP_FOWNER: setpriv cannot drop them here"
	else
		cp mnt/cut mnt/theirs && chown nobody mnt/theirs || fail "cannot give a copy of cut to nobody"
		./coldstart mnt/theirs -- setpriv --bounding-set=-fowner,-dac_override env LD_PRELOAD="$here/maps-at-exit.so" \
			MAPS_OUT="$here/nocaps.maps" mnt/theirs 20 > /dev/null ||
			fail "the cold run of nobody's cut as root without caps"
		nocaps_cut=$(maps_count mnt/theirs nocaps.maps)
		((nocaps_cut > warm_ordered + 20)) ||
			fail "cold, run by root without CAP_FOWNER, nobody's cut is $nocaps_cut mappings: not cut: $(cat nocaps.maps)"
		echo "cold, run by root without CAP_FOWNER: $nocaps_cut mappings of nobody's cut"
	fi
fi
echo "a cold start of ... 20 read ${measured[cut]} pages cut, ${measured[ordered]} not cut"
exit 0
