#!/bin/bash
# --bench on a program that loads a library the build makes (zlib's
# minigzip, expat's xmlwf): the program's RUNPATH names the build folder,
# so a copy of the plain program would load the PGO library there.  Each
# copy gets its own build's libraries and loads them (the loader says so);
# a program whose RPATH (searched before LD_LIBRARY_PATH) names the build
# folder is refused rather than measured wrongly.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need ldd

# make_project DIR RPATH-FLAGS: libwork.so.1 (work.c) and prog linked
# against it with the given flags naming the build folder.
make_project() {
	sample_project "$1"
	cat > "$1/Makefile" <<MK
CFLAGS += -O2
prog: main.o libwork.so.1
	\$(CC) \$(CFLAGS) \$(LDFLAGS) -o \$@ main.o -L. -lwork $2
libwork.so.1: work.c
	\$(CC) \$(CFLAGS) \$(LDFLAGS) -fPIC -shared -Wl,-soname,libwork.so.1 -o libwork.so.1.0 work.c
	ln -sf libwork.so.1.0 libwork.so.1
	ln -sf libwork.so.1 libwork.so
clean:
	rm -f prog *.o *.gcno libwork.so*
MK
}

make_project p "-Wl,-rpath,$PWD/p"
readelf -d p/prog 2> /dev/null | grep -q RPATH && fail "the fixture should use RUNPATH"
cat > p/bench.sh <<'SH'
#!/bin/sh
# records which libwork each program loads, and runs it
ldd "$PGO_BIN" | sed -n 's/.*libwork.so.1 => \([^ ]*\) .*/\1/p' | xargs readlink -f >> ../loaded
"$PGO_BIN" 1 > /dev/null
SH
chmod +x p/bench.sh
cd p
pgo_ok ../out ../err --build make --clean 'make clean' --bench ./bench.sh --bench-program prog --runs 1 './prog 1'
cd ..
store=$(ls -d "$PWD"/p/.pgo/* | grep -E '/[0-9a-f]{16}$')
printf '%s\n' "$store/bench/plain/libwork.so.1" "$store/bench/pgo/libwork.so.1" \
	"$store/bench/plain/libwork.so.1" "$store/bench/pgo/libwork.so.1" > want
expect_same want loaded "the libwork each benchmark run loaded"
cmp -s "$store/bench/pgo/libwork.so.1" p/libwork.so.1.0 || fail "the PGO copy is not the optimized library"
cmp -s "$store/bench/plain/libwork.so.1" p/libwork.so.1.0 && fail "the plain copy is the optimized library"
readelf -p .GCC.command.line "$store/bench/plain/libwork.so.1" | grep -q fprofile &&
	fail "the plain copy of the library was built with a profile flag"

# DT_RPATH beats LD_LIBRARY_PATH: refused, with the library named
make_project r "-Wl,--disable-new-dtags -Wl,-rpath,$PWD/r"
cp p/bench.sh r/
cd r
pgo ../out-r ../err-r --build make --clean 'make clean' --bench ./bench.sh --bench-program prog --runs 1 './prog 1'
cd ..
pgo_status 1 "--bench on a program whose RPATH names the build folder"
expect_grep "^pgo-run: bench: the plain program .*/bench/plain/prog loads libwork.so.1 from $PWD/r/libwork.so.1, not its own copy .*/bench/plain/libwork.so.1: " err-r
expect_no_grep '^\[bench\] plain median' out-r
