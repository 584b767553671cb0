#!/bin/bash
# The CMake module on a real CMake project: expat (scripts/fetch expat),
# its CMakeLists.txt given find_package(Linkopt) and one
# linkopt_startup() call for libexpat.so and xmlwf, with xmlwf checking a
# file of XML as the workload.  From a clean tree: Ninja with -j2 and
# response files (GNU ld), then Unix Makefiles without -j (lld); in a
# cell of tests/buildsys-matrix, both generators with its linker and
# jobs.  Each time the ordered library (and xmlwf) touches fewer code
# pages than the plain one and xmlwf prints the same; a later build keeps
# the order, and cmake --install installs the ordered library.  Then the
# Ninja build configured again with PLACEMENT data-first, BOLT and
# LLVM_BOLT llvm-bolt-22 (BOLT 16 cannot profile this xmlwf; BOLT 22
# breaks a relr link's .dynamic): its startup target rewrites both with
# linkopt-bolt, and xmlwf prints the same.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
need cmake ninja readelf
real_project expat
cd expat
xml_file data.xml 2000
cat >> CMakeLists.txt <<'EOF2'
find_package(Linkopt REQUIRED)
linkopt_startup(TARGET expat xmlwf LINKER ${LINKER} ${STARTUP_EXTRA}
                RUN $<TARGET_FILE:xmlwf> ${CMAKE_SOURCE_DIR}/data.xml)
EOF2

# build GENERATOR LINKER FOLDER BUILD-ARGS...: configure, build, order.
build() {
	local generator=$1 linker=$2 b=$3
	shift 3
	cmake -S . -B "$b" -G "$generator" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLinkopt_DIR="$TOP/cmake" \
		-DLINKER="$linker" -DBUILD_tests=OFF -DBUILD_examples=OFF -DCMAKE_INSTALL_PREFIX=/usr \
		-DCMAKE_NINJA_FORCE_RESPONSE_FILE=ON > "$b.configure" 2>&1 ||
		fail "cmake configure ($generator): $(tail -5 "$b.configure")"
	cmake --build "$b" "$@" > "$b.build" 2>&1 || fail "cmake --build ($generator): $(tail -5 "$b.build")"
	"$b/xmlwf/xmlwf" data.xml > "$b.plain.out" 2>&1 || fail "the plain xmlwf fails"
	cmake --build "$b" --target expat-startup-report "$@" > "$b.startup" 2>&1 ||
		fail "cmake --build --target expat-startup-report ($generator, $linker): $(tail -5 "$b.startup")"
	"$b/xmlwf/xmlwf" data.xml > "$b.ordered.out" 2>&1 || fail "the ordered xmlwf fails"
	expect_same "$b.plain.out" "$b.ordered.out" "xmlwf's output, plain and ordered ($generator, $linker)"
	expect_fewer "$b.startup" expat
	expect_fewer "$b.startup" xmlwf or-equal
}

# after GENERATOR LINKER FOLDER: a later build that relinks keeps the
# order (the same bytes: the object is rebuilt the same), and
# cmake --install installs the ordered library.
after() {
	local b=$3 so=$3/libexpat.so.1.6.3
	linked_by "$so" "$2"
	cp "$so" "$b.ordered.so" || fail "cannot copy $so"
	touch lib/xmlrole.c
	cmake --build "$b" > "$b.rebuild" 2>&1 || fail "the rebuild ($1): $(tail -5 "$b.rebuild")"
	grep -q 'Linking C shared library' "$b.rebuild" || fail "touching a source relinked nothing ($1): $(cat "$b.rebuild")"
	cmp -s "$so" "$b.ordered.so" || fail "the rebuild ($1, $2) linked another library than the ordered one"
	rm -rf dest
	DESTDIR=$PWD/dest cmake --install "$b" > "$b.install" 2>&1 || fail "cmake --install ($1): $(tail -5 "$b.install")"
	cmp -s "$so" dest/usr/lib/libexpat.so.1.6.3 || fail "cmake --install ($1) did not install the ordered library"
}

if [[ -n ${BUILDSYS_LINKER:-}${BUILDSYS_JOBS:-} ]]; then
	linker=$(matrix_linker gnu-ld) jobs=$(matrix_jobs 2)
	build Ninja "$linker" ninja -j"$jobs"
	after Ninja "$linker" ninja
	build 'Unix Makefiles' "$linker" make -j"$jobs"
	after 'Unix Makefiles' "$linker" make
else
	build Ninja gnu-ld ninja -j2
	after Ninja gnu-ld ninja
	build 'Unix Makefiles' lld make
	after 'Unix Makefiles' lld make
fi
[[ -f ninja/linkopt/expat.rsp.0 ]] || fail "the Ninja build used no response file: the test lost its point"
cat ninja.startup make.startup

if command -v llvm-bolt-22 > /dev/null; then
	cmake -S . -B ninja -DLINKER=gnu-ld "-DSTARTUP_EXTRA=PLACEMENT;data-first;BOLT;LLVM_BOLT;llvm-bolt-22" \
		> bolt.configure 2>&1 || fail "cmake configure with BOLT: $(tail -5 bolt.configure)"
	cmake --build ninja --target expat-startup > bolt.startup 2>&1 ||
		fail "cmake --build --target expat-startup with BOLT: $(tail -5 bolt.startup)"
	expect_grep '^expat: ordered for gnu-ld/data-first\+bolt \(llvm-bolt-22\), start-up code pages' bolt.startup
	cmp -s ninja/libexpat.so.1.6.3 ninja/linkopt/expat.bolt || fail "libexpat.so is not BOLT's rewrite"
	ninja/xmlwf/xmlwf data.xml > bolt.out 2>&1 || fail "xmlwf rewritten by BOLT fails"
	expect_same ninja.plain.out bolt.out "xmlwf's output, plain and rewritten by BOLT"
	cat bolt.startup
else
	echo "the BOLT path: no llvm-bolt-22 (apt-get install bolt-22)"
fi
exit 0
