#!/bin/bash
# The CMake module and the wrapper from an install alone: make install
# into a DESTDIR, the build tree removed; find_package(Linkopt) finds
# PREFIX/share/linkopt/cmake from PATH, and its linkopt_startup() orders a
# program and the shared library it loads with the installed
# linkopt-startup, which finds the installed pagein, deporder and
# linkopt-prefetch.o.
. "$(dirname "$0")/lib.sh"
need gcc make cmake valgrind tar

install_copy
for f in bin/linkopt-cc bin/linkopt-startup share/linkopt/cmake/LinkoptConfig.cmake \
	share/linkopt/cmake/LinkoptConfigVersion.cmake share/linkopt/cmake/LinkoptStartup.cmake \
	share/man/man1/linkopt-startup.1 share/man/man1/linkopt-cc.1; do
	[[ -e $P/$f ]] || fail "PREFIX/$f is not installed"
done
man -l "$P/share/man/man1/linkopt-startup.1" > /dev/null 2>&1 || fail "man cannot read linkopt-startup.1"

mkdir src
cd src
# 30 functions of about 2 KiB each; the start-up runs 3 far apart
for i in $(seq 0 29); do
	printf 'int f%d(int x)\n{\n' "$i"
	for j in $(seq 1 120); do printf '\tx = x * %d + %d;\n\tif (x == %d) return %d;\n' "$((j % 7 + 2))" "$j" "$((j * 31 + i))" "$j"; done
	printf '\treturn x;\n}\n'
done > lib.c
echo 'int work(int x) { return f1(x) + f14(x) + f28(x); }' >> lib.c
cat > main.c <<'EOF2'
#include <stdio.h>
int work(int);
int main(int argc, char **argv) { (void)argv; printf("%d\n", work(argc) & 0xff); return 0; }
EOF2
cat > CMakeLists.txt <<'EOF2'
cmake_minimum_required(VERSION 3.21)
project(small C)
add_library(work SHARED lib.c)
add_executable(prog main.c)
target_link_libraries(prog work)
find_package(Linkopt @VERSION@ REQUIRED)
linkopt_startup(TARGET work prog RUN $<TARGET_FILE:prog>)
EOF2
sed -i "s/@VERSION@/$(cat "$TOP/VERSION")/" CMakeLists.txt
cd ..
PATH=$P/bin:/usr/bin:/bin cmake -S src -B build > configure.log 2>&1 || fail "cmake with the installed module: $(tail -5 configure.log)"
grep -q "LINKOPT_STARTUP:FILEPATH=$P/bin/linkopt-startup" build/CMakeCache.txt ||
	fail "the module did not take the installed linkopt-startup: $(grep LINKOPT_ build/CMakeCache.txt)"
PATH=$P/bin:/usr/bin:/bin cmake --build build --target work-startup-report > startup.log 2>&1 ||
	fail "work-startup-report with the installed tools: $(tail -5 startup.log)"
read -r before after rest <<< "$(awk '$1 == "work" { print $2, $3 }' startup.log)"
[[ -n $before && -n $after ]] || fail "no report line for the library: $(cat startup.log)"
((after < before)) || fail "libwork.so: code pages $before -> $after with the order"
nm build/libwork.so | grep -q __linkopt_hot_start || fail "libwork.so is not linked with the script and the installed linkopt-prefetch.o"
want=$(cat build/linkopt/work.out)
[[ -n $want && $(build/prog) == "$want" ]] || fail "the ordered program prints $(build/prog), the plain one printed $want"
exit 0
