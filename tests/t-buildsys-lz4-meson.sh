#!/bin/bash
# linkopt-cc as meson's CC on a real meson project: lz4's own meson build
# (scripts/fetch lz4, contrib/meson), built by ninja one job at a time;
# linkopt-startup orders liblz4.so and the lz4 program, linked by GNU ld
# (tests/buildsys-matrix: any linker, with or without -j), from one run of lz4 compressing C sources to stdout.  Both touch fewer
# code pages, the compressed bytes are the same, and ninja has nothing
# left to relink.  Then the BOLT path on the same build: data-first and
# linkopt-bolt (its own choice of BOLT: BOLT 16 cannot profile this lz4,
# "traces mismatching disassembled function contents: 33.7%"), checked
# natively: the rewritten outputs are in place and compress the same.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
need meson ninja
linker=$(matrix_linker gnu-ld) jobs=$(matrix_jobs 1)
real_project lz4
cd lz4
cat lib/*.c programs/*.c > data
CC="$LINKOPT_CC --dir=$PWD/linkopt gcc" meson setup build contrib/meson -Dbin_programs=true > setup.log 2>&1 ||
	fail "meson setup: $(tail -5 setup.log)"
ninja -C build -j"$jobs" > ninja.log 2>&1 || fail "ninja: $(tail -5 ninja.log)"
lib=$(cd build/lib && ls -d liblz4.so.*.*.[0-9]) || fail "no liblz4.so built: $(ls build/lib)"
ls linkopt > records
printf '%s\n' "$lib.link" lz4.link > want
expect_same want records "the links linkopt-cc recorded"
build/programs/lz4 -q -c -9 data > plain.lz4 || fail "the plain lz4 fails"

startup_ok startup.log --dir=linkopt --target="$lib" --target=lz4 --linker="$linker" --report -- build/programs/lz4 -q -c -9 data
build/programs/lz4 -q -c -9 data > ordered.lz4 || fail "the ordered lz4 fails"
expect_same plain.lz4 ordered.lz4 "lz4's output, plain and ordered"
build/programs/lz4 -q -d -c ordered.lz4 | cmp -s - data || fail "the ordered lz4 does not decompress its output"
expect_fewer startup.log "$lib"
expect_fewer startup.log lz4
linked_by "build/lib/$lib" "$linker"
linked_by build/programs/lz4 "$linker"
cp "build/lib/$lib" lib.ordered && cp build/programs/lz4 lz4.ordered || fail "cannot copy the ordered outputs"
ninja -C build -j"$jobs" > ninja2.log 2>&1 || fail "ninja after ordering: $(tail -5 ninja2.log)"
cmp -s "build/lib/$lib" lib.ordered || fail "ninja relinked liblz4.so without its order"
cmp -s build/programs/lz4 lz4.ordered || fail "ninja relinked lz4 without its order"
cat startup.log

if command -v llvm-bolt-22 > /dev/null; then
	startup_ok bolt.log --dir=linkopt --target="$lib" --target=lz4 --placement=data-first --bolt \
		-- build/programs/lz4 -q -c -9 data
	expect_grep "^$lib: ordered for gnu-ld/data-first\\+bolt, start-up code pages" bolt.log
	cmp -s "build/lib/$lib" "linkopt/$lib.bolt" || fail "liblz4.so is not BOLT's rewrite"
	cmp -s build/programs/lz4 linkopt/lz4.bolt || fail "lz4 is not BOLT's rewrite"
	build/programs/lz4 -q -c -9 data > bolt.lz4 || fail "the rewritten lz4 fails"
	expect_same plain.lz4 bolt.lz4 "lz4's output, plain and rewritten by BOLT"
	cat bolt.log
else
	echo "the BOLT path: no llvm-bolt-22 (apt-get install bolt-22)"
fi
exit 0
