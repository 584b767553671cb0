#!/bin/bash
# C++ through a real project's own build: LevelDB 1.20 (scripts/fetch
# leveldb), its Makefile run with CXX='linkopt-cc --dir=DIR g++' as a user
# would.  Its db_bench is compiled and linked in one command (db_bench.cc
# and the library's objects): linkopt-cc compiles the source apart and
# records the link (it used to run such a command as a compile, recording
# nothing).  GNU ld's, gold's and lld's closures of the objects linked
# statically (libstdc++.a: COMDAT groups, template instances, exceptions,
# static constructors) are deporder's; linkopt-startup orders db_bench's
# start-up (fillseq of 1000 keys) for GNU ld, gold and lld to within three
# pages of the whole-function bound (the PLT and .init/.fini are not in
# it), and the ordered program writes the same database bytes.  The same
# with clang++ when clang is there (its objects' static closure by GNU ld,
# orders for the three linkers), and BOLT on lld's ordered link.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/linkmap-lib.sh"
need g++ make readelf cmp
src=$("$TOP/scripts/fetch" leveldb 2> fetch.err) || skip "needs LevelDB's sources: $(tail -n 1 fetch.err)"

# build DIR CXX...: LevelDB's own make of db_bench in a copy DIR, the
# compiler through linkopt-cc recording in DIR.rec
build() {
	local dir=$1
	shift
	cp -r "$src" "$dir" && rm -f "$dir/.complete" || fail "cannot copy LevelDB"
	make -C "$dir" -j2 out-static/db_bench OPT='-O2 -DNDEBUG' \
		CXX="$TOP/linkopt-cc/linkopt-cc --dir=$PWD/$dir.rec $*" > "$dir.build.log" 2>&1 ||
		{ tail -n 20 "$dir.build.log" >&2; fail "LevelDB's make out-static/db_bench with $* failed"; }
	[[ -f $dir.rec/db_bench.link ]] ||
		fail "$*: db_bench's link (db_bench.cc compiled and linked in one command) was not recorded"
	tr '\0' '\n' < "$dir.rec/db_bench.link" | grep -q '/db_bench\.objects/0-db_bench\.o$' ||
		fail "$*: the record does not link db_bench.cc's own object: $(tr '\0' ' ' < "$dir.rec/db_bench.link" | head -c 300)"
}

# order DIR LINKER [OPTION...]: linkopt-startup on db_bench's start-up;
# checks the pages against the bound and the database the ordered program
# writes
order() {
	local dir=$1 linker=$2 line before after bound
	shift 2
	rm -rf "$dir.db-$linker"
	(cd "$dir" && "$TOP/linkopt-startup/linkopt-startup" --dir="$PWD/../$dir.rec" --target=db_bench \
		--linker="$linker" "$@" -- ./out-static/db_bench --benchmarks=fillseq --num=1000 \
		--db="$PWD/../$dir.db-$linker") > "$dir.$linker.out" 2> "$dir.$linker.err" ||
		{ tail -n 20 "$dir.$linker.err" >&2; fail "linkopt-startup --linker=$linker on $dir's db_bench failed"; }
	line=$(grep '^db_bench: ordered for ' "$dir.$linker.out") || fail "$dir, $linker: no summary line"
	[[ $line =~ start-up\ code\ pages\ ([0-9]+)\ -\>\ ([0-9]+) ]] || fail "$dir, $linker: $line"
	before=${BASH_REMATCH[1]} after=${BASH_REMATCH[2]}
	bound=$(sed -n 's/.*at least \([0-9]*\) pages of 4096 (the whole-function bound).*/\1/p' \
		"$dir.rec/db_bench.$linker.order.log" | head -n 1)
	[[ -n $bound ]] || fail "$dir, $linker: no whole-function bound in the order's log"
	# the bound counts the traced functions; a run touches the PLT and
	# .init/.fini besides, which gold and lld place where they will
	(( after < before && after <= bound + 3 )) ||
		fail "$dir, $linker: code pages $before -> $after, the functions run span $bound pages"
	# the same database, byte for byte, from the default and the ordered program
	rm -rf "$dir.d1" "$dir.d2"
	run_ok "$dir.run1" "$dir.rec/db_bench.default" --benchmarks=fillseq --num=1000 --db="$PWD/$dir.d1"
	run_ok "$dir.run2" "$dir/out-static/db_bench" --benchmarks=fillseq --num=1000 --db="$PWD/$dir.d2"
	cmp "$dir.d1/000003.log" "$dir.d2/000003.log" ||
		fail "$dir, $linker: the ordered db_bench wrote another database than the default one"
	expect_grep '^fillseq +: ' "$dir.run2" "the ordered db_bench's report"
}

build gcc g++
objs=()
while read -r w; do
	objs+=("$w")
done < <(tr '\0' '\n' < gcc.rec/db_bench.link | grep '\.o$')
(( ${#objs[@]} > 40 )) || fail "fixture: ${#objs[@]} objects in db_bench's link"
o0=gcc.rec/db_bench.objects/0-db_bench.o
readelf -SW "$o0" | grep -q ' GROUP ' || fail "fixture: db_bench.o has no COMDAT group"
readelf -SW "$o0" | grep -q '\.gcc_except_table' || fail "fixture: db_bench.o has no exception tables"
readelf -SW "$o0" | grep -q '\.text\._ZN' || fail "fixture: db_bench.o was not compiled with -ffunction-sections"
lib=$(g++ -print-file-name=libstdc++.a)
if [[ $lib == /* && -f $lib ]]; then
	(cd gcc && oracle_cc ../static g++ -static -pthread -o ../db_bench-static "${objs[@]}")
	grep -q '/libstdc++\.a(' static.expected || fail "fixture: no libstdc++.a member in ld's list"
	# gold's and lld's closures of the same static link, from their maps
	for l in gold lld; do
		command -v ld.$l > /dev/null || continue
		(cd gcc && g++ -static -pthread -fuse-ld=$l -o "../db_bench-$l" "${objs[@]}" -Wl,-Map="../static-$l.map") \
			> "static-$l.err" 2>&1 || fail "the static link with $l failed: $(head -n 3 "static-$l.err")"
		(cd gcc && deporder_ok "../static-$l.dep" "../static-$l.dep.err" -q --format=members --cc -- \
			g++ -static -pthread -fuse-ld=$l -o "../db_bench-$l" "${objs[@]}")
		[[ $l == gold ]] && order_kind=ordered || order_kind=set
		linkmap_members "static-$l" "static-$l.map" $order_kind
	done
fi
for linker in gnu-ld gold lld; do
	order gcc $linker
done

need_clang_or_done() {
	CLANG=
	for c in clang++-22 clang++; do
		command -v "$c" > /dev/null && { CLANG=$c; return 0; }
	done
	return 1
}
if need_clang_or_done && command -v ld.lld > /dev/null; then
	build clang "$CLANG"
	# clang++'s objects linked statically by GNU ld through clang++
	cobjs=()
	while read -r w; do
		cobjs+=("$w")
	done < <(tr '\0' '\n' < clang.rec/db_bench.link | grep '\.o$')
	if [[ $lib == /* && -f $lib ]]; then
		(cd clang && oracle_cc ../static-clang "$CLANG" -static -pthread -o ../db_bench-clang-static "${cobjs[@]}")
		grep -q '/libstdc++\.a(' static-clang.expected || fail "fixture: no libstdc++.a member in the clang++ link"
	fi
	for linker in gnu-ld gold lld; do
		order clang $linker
	done
	# BOLT on lld's link: the trace's records in strings lld merged
	# (.rodata.str1.1) count as the linker's (they were "missing", 87% matched,
	# and no order was made); db_bench prints timings, so the rewrite is
	# checked by the database it writes
	if command -v llvm-bolt-22 > /dev/null || [[ -x /usr/lib/llvm-22/bin/llvm-bolt ]] || command -v llvm-bolt > /dev/null; then
		order clang lld --bolt --check "rm -rf $PWD/check-db && ./out-static/db_bench --benchmarks=fillseq --num=1000 --db=$PWD/check-db > /dev/null 2>&1 && cksum < $PWD/check-db/000003.log"
	fi
fi
