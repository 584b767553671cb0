#!/bin/bash
# PGO and start-up order on one CMake project: expat (scripts/fetch expat)
# with linkopt_startup() in its CMakeLists.txt, built by pgo-run's CMake
# recipe (pgo-run(1), as written), then ordered by the custom target in
# the build folder pgo-run configured: the PGO objects are linked as they
# are (nothing is recompiled), libexpat.so touches no more code pages
# than the PGO build did, and xmlwf prints the same.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need_buildsys
need cmake readelf
real_project expat
cd expat
xml_file data.xml 5000
cat >> CMakeLists.txt <<EOF2
find_package(Linkopt REQUIRED PATHS $TOP/cmake NO_DEFAULT_PATH)
linkopt_startup(TARGET expat xmlwf RUN \$<TARGET_FILE:xmlwf> \${CMAKE_SOURCE_DIR}/data.xml)
EOF2
recipe=$(sed -n '/^pgo-run --clean .cmake -S/,/xmlwf/p' "$TOP/pgo-run/pgo-run.1" | sed 's/\\e$/\\/')
[[ -n $recipe ]] || fail "pgo-run(1) has no CMake recipe"
recipe=${recipe//pgo-run/\"\$PGO_RUN\"}
export PGO_RUN
timeout -k 5 600 bash -c "$recipe" > pgo.out 2>&1 < /dev/null || fail "the CMake recipe of pgo-run(1): $(tail -5 pgo.out)"
expect_grep '^\[optimized build\] 0 coverage-mismatch warnings' pgo.out
obj=$(find build-pgo -name 'xmlparse.c.o' | head -n 1)
readelf -p .GCC.command.line "$obj" | grep -qE -- '-fprofile-use=.*|-ffunction-sections' ||
	fail "$obj was not built with the profile and function sections"
cp "$obj" pgo.o
./build-pgo/xmlwf/xmlwf data.xml > pgo.xmlwf 2>&1 || fail "the PGO xmlwf fails"

cmake --build build-pgo --target expat-startup-report > startup.log 2>&1 || fail "expat-startup-report: $(tail -5 startup.log)"
cmp -s "$obj" pgo.o || fail "ordering recompiled the PGO objects"
./build-pgo/xmlwf/xmlwf data.xml > ordered.xmlwf 2>&1 || fail "the ordered xmlwf fails"
expect_same pgo.xmlwf ordered.xmlwf "xmlwf's output, PGO and PGO ordered"
expect_fewer startup.log expat or-equal
nm build-pgo/libexpat.so.1.6.3 | grep -q __linkopt_hot_start || fail "libexpat.so is not ordered"
cat startup.log
exit 0
