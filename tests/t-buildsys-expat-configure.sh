#!/bin/bash
# linkopt-cc as configure's CC on a real autotools project: expat
# (scripts/fetch expat) built by its own configure and libtool with
# make -j2; linkopt-startup orders libexpat.so and xmlwf, linked by gold
# (tests/buildsys-matrix: any linker, with or without -j), from one run
# of xmlwf through libtool's wrapper script (--trace-children).  The ordered library touches fewer code pages,
# xmlwf prints the same, make has nothing left to do, and make install
# installs the ordered library.  Then the BOLT path on the same build
# (GNU ld, data-first, linkopt-bolt with BOLT 16, through the wrapper
# script): the rewritten library is in place and xmlwf prints the same.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
need make readelf
linker=$(matrix_linker gold) jobs=$(matrix_jobs 2)
real_project expat
cd expat
xml_file data.xml 2000
./configure CC="$LINKOPT_CC --dir=$PWD/linkopt gcc" > configure.log 2>&1 || fail "configure: $(tail -5 configure.log)"
make -j"$jobs" > make.log 2>&1 || fail "make -j$jobs: $(tail -5 make.log)"
lib=$(cd .libs && ls libexpat.so.*.*.*) || fail "no libexpat.so built: $(ls .libs)"
ls linkopt > records
printf '%s\n' "$lib.link" xmlwf.link > want
expect_same want records "the links linkopt-cc recorded (configure's conftest links left out)"
./xmlwf/xmlwf data.xml > plain.out 2>&1 || fail "the plain xmlwf fails"

startup_ok startup.log --dir=linkopt --target="$lib" --target=xmlwf --linker="$linker" --trace-children --report \
	-- ./xmlwf/xmlwf data.xml
./xmlwf/xmlwf data.xml > ordered.out 2>&1 || fail "the ordered xmlwf fails"
expect_same plain.out ordered.out "xmlwf's output, plain and ordered"
expect_fewer startup.log "$lib"
expect_fewer startup.log xmlwf or-equal
linked_by ".libs/$lib" "$linker"
linked_by xmlwf/.libs/xmlwf "$linker"
make > make2.log 2>&1 || fail "make after ordering: $(tail -5 make2.log)"
grep -q 'libtool: link' make2.log && fail "make relinked after ordering: $(grep 'libtool: link' make2.log)"
make install DESTDIR="$PWD/dest" > install.log 2>&1 || fail "make install: $(tail -5 install.log)"
cmp -s ".libs/$lib" "dest/usr/local/lib/$lib" || fail "make install did not install the ordered library"
cat startup.log

if command -v llvm-bolt-16 > /dev/null; then
	startup_ok bolt.log --dir=linkopt --target="$lib" --placement=data-first --bolt --llvm-bolt=llvm-bolt-16 \
		--trace-children -- ./xmlwf/xmlwf data.xml
	expect_grep "^$lib: ordered for gnu-ld/data-first\\+bolt \\(llvm-bolt-16\\), start-up code pages" bolt.log
	cmp -s ".libs/$lib" "linkopt/$lib.bolt" || fail "libexpat.so is not BOLT's rewrite"
	./xmlwf/xmlwf data.xml > bolt.out 2>&1 || fail "xmlwf with the rewritten library fails"
	expect_same plain.out bolt.out "xmlwf's output, plain and with BOLT's library"
	cat bolt.log
else
	echo "the BOLT path: no llvm-bolt-16 (apt-get install bolt-16)"
fi
exit 0
