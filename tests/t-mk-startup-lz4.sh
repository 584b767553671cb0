#!/bin/bash
# mk/startup.mk on a real project's own Makefiles, as a user would: lz4
# (scripts/fetch lz4), from a clean tree with make -j2.  lib/Makefile
# orders liblz4.so for lz4's example frameCompress compressing a real file
# (lz4 1.9.2's own program cannot load liblz4.so: it calls LZ4F_headerSize
# and LZ4F functions for static linking only, which the library hides), and
# programs/Makefile orders the lz4 program compressing the same file; each
# with GNU ld (make -j2), gold and lld (make without -j); in a cell of
# tests/buildsys-matrix, with its linker and jobs.  Each ordered output
# touches fewer code pages than the default link, and writes the same
# compressed file; lz4's own make keeps the ordered outputs; make
# startup-check passes (with BOLT too, and says so when the rewrite is lost).
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein make readelf ld.gold ld.lld
src=$("$TOP/scripts/fetch" lz4 2> fetch.err) || skip "needs lz4's sources: $(tail -n 1 fetch.err)"
cp -r "$src" lz4 && rm -f lz4/.complete || fail "cannot copy lz4"
tar -C lz4 -cf sample.tar lib programs || fail "cannot make the sample"

# the lines README.md gives for lz4
cat >> lz4/lib/Makefile <<EOF2

LINKOPT ?= $TOP
../examples/frameCompress-shared: ../examples/frameCompress.c \$(LIBLZ4)
	\$(CC) \$(FLAGS) -I. -o \$@ \$< \$(LIBLZ4) -Wl,-rpath,'\$\$ORIGIN/../lib'
STARTUP_DSOS = lz4
STARTUP_DSO_lz4 = \$(LIBLZ4)
STARTUP_DSO_lz4_INPUTS = \$(SRCFILES:.c=.o)
STARTUP_DSO_lz4_LDFLAGS = \$(SONAME_FLAGS)
STARTUP_DSO_lz4_HOST = ../examples/frameCompress-shared
STARTUP_DSO_lz4_RUN = \$(STARTUP_PROGRAM) ../../sample.tar
include \$(LINKOPT)/mk/startup.mk
EOF2
cat >> lz4/programs/Makefile <<EOF2

LINKOPT ?= $TOP
STARTUP_PROG = lz4
STARTUP_INPUTS = \$(OBJFILES)
STARTUP_RUN = \$(STARTUP_PROGRAM) -f -1 ../../sample.tar ../../sample.tar.lz4
include \$(LINKOPT)/mk/startup.mk
EOF2
flags=(MOREFLAGS='-fPIC -fvisibility=hidden -ffunction-sections -fdata-sections')

# code_pages OUT NAME: "BEFORE AFTER" code pages of NAME as make startup said
code_pages() {
	sed -n "s/^$2: ordered for [^ ]*, start-up code pages \([0-9]*\) -> \([0-9]*\)\$/\1 \2/p" "$1"
}

linkers=(gnu-ld gold lld)
[[ -n ${BUILDSYS_LINKER:-} ]] && linkers=("$BUILDSYS_LINKER")
for linker in "${linkers[@]}"; do
	jobs=1
	[[ $linker == gnu-ld ]] && jobs=2
	jobs=${BUILDSYS_JOBS:-$jobs}
	for dir in lib programs; do
		make -C lz4/$dir -j$jobs startup STARTUP_LINKER=$linker "${flags[@]}" > $dir-$linker.out 2>&1 ||
			fail "make -C $dir -j$jobs startup STARTUP_LINKER=$linker: $(tail -5 $dir-$linker.out)"
	done
	read -r before after <<< "$(code_pages lib-$linker.out 'liblz4\.so\.1\.9\.2')"
	[[ -n $before && -n $after ]] || fail "$linker: no line for liblz4.so.1 in the report"
	((after < before)) || fail "$linker: liblz4.so's start-up code pages $before -> $after"
	echo "liblz4.so $linker: $before -> $after"
	echo "row: liblz4.so.1.9.2 $before $after"
	read -r before after <<< "$(code_pages programs-$linker.out lz4)"
	[[ -n $before && -n $after ]] || fail "$linker: no line for lz4 in the report"
	((after < before)) || fail "$linker: lz4's start-up code pages $before -> $after"
	echo "lz4 $linker: $before -> $after"
	echo "row: lz4 $before $after"

	# the same compressed file from the plain and the ordered links
	run_ok plain.out lz4/programs/.linkopt/lz4.default -q -f -1 sample.tar want.lz4
	run_ok ordered.out lz4/programs/lz4 -q -f -1 sample.tar got.lz4
	cmp want.lz4 got.lz4 || fail "$linker: the ordered lz4 writes another file"
	rm -rf plainlib && mkdir plainlib && cp lz4/lib/.linkopt/liblz4.so.1.9.2.default plainlib/liblz4.so.1 || fail "plainlib"
	LD_PRELOAD=$PWD/plainlib/liblz4.so.1 lz4/examples/frameCompress-shared sample.tar > /dev/null &&
		mv sample.tar.lz4 want.lz4 || fail "$linker: frameCompress with the plain liblz4.so"
	lz4/examples/frameCompress-shared sample.tar > /dev/null && mv sample.tar.lz4 got.lz4 ||
		fail "$linker: frameCompress with the ordered liblz4.so"
	cmp want.lz4 got.lz4 || fail "$linker: frameCompress writes another file with the ordered liblz4.so"
	loaded=$(ldd lz4/examples/frameCompress-shared | awk '$1 == "liblz4.so.1" { print $3 }')
	[[ $loaded -ef lz4/lib/liblz4.so.1.9.2 ]] ||
		fail "frameCompress-shared does not load the ordered liblz4.so: $(ldd lz4/examples/frameCompress-shared)"

	# the project's own make keeps them: nothing to relink
	make -q -C lz4/lib liblz4.so.1.9.2 "${flags[@]}" && make -q -C lz4/programs lz4 "${flags[@]}" ||
		fail "$linker: lz4's make would relink an ordered output"
	for dir in lib programs; do
		make -s -C lz4/$dir startup-check STARTUP_LINKER=$linker "${flags[@]}" > check.out 2>&1 ||
			fail "make -C $dir startup-check STARTUP_LINKER=$linker: $(tail -5 check.out)"
	done
done

# the BOLT path from lz4's own Makefile: data-first, linkopt-bolt (BOLT 16)
if command -v llvm-bolt-16 > /dev/null; then
	make -C lz4/programs startup STARTUP_PLACEMENT=data-first STARTUP_BOLT=yes STARTUP_LLVM_BOLT=llvm-bolt-16 \
		"${flags[@]}" > bolt.out 2>&1 || fail "make startup STARTUP_BOLT=yes: $(tail -5 bolt.out)"
	expect_grep '^lz4: ordered for gnu-ld/data-first\+bolt \(llvm-bolt-16\), start-up code pages' bolt.out
	cmp -s lz4/programs/lz4 lz4/programs/.linkopt/lz4.bolt || fail "lz4 is not BOLT's rewrite"
	run_ok plain.out lz4/programs/.linkopt/lz4.default -q -f -1 sample.tar want.lz4
	run_ok bolt.run lz4/programs/lz4 -q -f -1 sample.tar got.lz4
	cmp want.lz4 got.lz4 || fail "lz4 rewritten by BOLT writes another file"
	# startup-check passes BOLT's rewrite in place, and says so when the
	# ordered link took its place (the order linked again, not through
	# linkopt-cc)
	check_bolt() {
		make -s -C lz4/programs startup-check STARTUP_PLACEMENT=data-first STARTUP_BOLT=yes \
			STARTUP_LLVM_BOLT=llvm-bolt-16 "${flags[@]}" > check.out 2>&1
	}
	check_bolt || fail "make startup-check STARTUP_BOLT=yes: $(tail -5 check.out)"
	cp lz4/programs/.linkopt/lz4.ordered lz4/programs/lz4 || fail "cannot put the ordered link in place"
	check_bolt && fail "make startup-check passes the ordered link in place of BOLT's rewrite: $(cat check.out)"
	expect_grep 'lz4 is its ordered link without the rewrite kept \(.*/lz4\.bolt\)' check.out
	cp lz4/programs/.linkopt/lz4.bolt lz4/programs/lz4 || fail "cannot put BOLT's rewrite back"
else
	echo "the BOLT path: no llvm-bolt-16 (apt-get install bolt-16)"
fi
exit 0
