#!/bin/bash
# The Debian package: debian/ builds with dpkg-buildpackage -us -uc -b
# (scripts/build-deb, from a copy of the tree) into a .deb that lintian
# passes with no error; installed with dpkg on this machine, the flow runs
# from the package alone: valgrind --tool=pagein and the pagein launcher
# with no VALGRIND_LIB, deporder's order relinked, find_package(Linkopt)
# and linkopt_startup() in a CMake project, startup.mk found through
# pkg-config, cygtrace preloaded by name, the man pages; then dpkg --purge
# leaves no file of the package behind (nor a folder it made, nor the
# loader's cache entry).
#
# It installs a package as root and takes minutes: it runs only with
# TEST_DEB=1 (make check-deb, which .ci/run runs).  TEST_DEB_PACKAGE=FILE
# tests that .deb instead of building one (its .changes beside it, when
# there is one, goes to lintian).
. "$(dirname "$0")/lib.sh"

[[ ${TEST_DEB:-} == 1 ]] || skip "installs a package on this machine and takes minutes: set TEST_DEB=1 (make check-deb)"
(( $(id -u) == 0 )) || skip "needs root (dpkg -i)"
need dpkg dpkg-deb dpkg-buildpackage dh lintian gcc make cmake pkg-config valgrind nm ldconfig
status=$(dpkg-query -W -f='${db:Status-Status}' linkopt 2> /dev/null) || true
[[ -z $status || $status == not-installed ]] ||
	skip "a linkopt package is on this machine already ($status): the test would replace and remove it"
for other in /usr/local/lib/pkgconfig/linkopt.pc /usr/local/share/linkopt; do
	[[ ! -e $other ]] || skip "$other (a make install into /usr/local) would shadow the package"
done

# run_dpkg ARG…: dpkg (with root's PATH, which its scripts need), waiting
# while another dpkg or apt holds its lock; its output in dpkg.log.
run_dpkg() {
	local try
	for try in $(seq 60); do
		if PATH=/usr/sbin:/usr/bin:/sbin:/bin dpkg "$@" > dpkg.log 2>&1; then
			return 0
		fi
		grep -q 'lock' dpkg.log || return 1
		sleep 5
	done
	return 1
}

# the package, and lintian
start=$SECONDS
if [[ -n ${TEST_DEB_PACKAGE:-} ]]; then
	deb=$TEST_DEB_PACKAGE
	[[ -f $deb ]] || fail "TEST_DEB_PACKAGE: no file $deb"
else
	deb=$("$TOP/scripts/build-deb" "$PWD/out" 2> build.err) || fail "scripts/build-deb: $(tail -20 build.err)"
	expect_grep 'dpkg-buildpackage: info: binary-only upload' out/build.log "the build log"
fi
echo "package: $deb ($((SECONDS - start)) s)"
changes=${deb%.deb}.changes
[[ -f $changes ]] || changes=$deb
lintian_status=0
lintian --fail-on error "$changes" > lintian.out 2> lintian.err || lintian_status=$?
cat lintian.out
grep -q '^E: ' lintian.out && fail "lintian found errors: $(grep '^E: ' lintian.out)"
((lintian_status == 0)) || fail "lintian exited $lintian_status: $(head -5 lintian.err)"
echo "lintian: $(grep -c '^W: ' lintian.out) warnings ($((SECONDS - start)) s)"

# what the package holds, and what of it the machine has before it
dpkg-deb --fsys-tarfile "$deb" | tar -t > contents.tar || fail "dpkg-deb cannot read $deb"
sed -e 's|^\./|/|' -e 's|/$||' contents.tar | grep -v '^\.\?$' > contents
expect_grep '^/usr/libexec/valgrind/pagein-amd64-linux$' contents "the package's files"
: > dirs-before
while read -r path; do
	if [[ -d $path && ! -L $path ]]; then
		echo "$path" >> dirs-before
	elif [[ -e $path || -L $path ]]; then
		skip "$path is on this machine already (no package's): installing would replace it, removing would delete it"
	fi
done < contents

at_exit 'dpkg-query -W linkopt > /dev/null 2>&1 && { run_dpkg --purge linkopt || echo "cannot purge linkopt: $(tail -3 dpkg.log)" >&2; }'
run_dpkg -i "$deb" || fail "dpkg -i $deb: $(tail -10 dpkg.log)"
[[ $(dpkg-query -W -f='${db:Status-Status}' linkopt) == installed ]] || fail "dpkg -i left linkopt $(dpkg-query -W -f='${db:Status-Status}' linkopt)"
dpkg -L linkopt > installed || fail "dpkg -L linkopt"
for path in /usr/bin/deporder /usr/bin/pagein /usr/libexec/valgrind/pagein-amd64-linux \
	/usr/share/linkopt/cmake/LinkoptConfig.cmake /usr/share/linkopt/mk/startup.mk /usr/lib/pkgconfig/linkopt.pc; do
	grep -qx -- "$path" installed || fail "dpkg -L linkopt does not list $path"
	[[ -e $path ]] || fail "$path is not on the machine after dpkg -i"
done

# the flow, from the package alone: nothing of the tree on the paths
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset VALGRIND_LIB PKG_CONFIG_PATH CMAKE_PREFIX_PATH
[[ $(command -v pagein) == /usr/bin/pagein ]] || fail "pagein on PATH is $(command -v pagein)"
for page in deporder pagein pagein-report linkopt-startup linkopt-cc linkopt-mk; do
	[[ $(man -w "$page" 2> /dev/null) == /usr/share/man/man[17]/*.[17].gz ]] || fail "man -w $page: $(man -w "$page" 2>&1)"
done

cat > prog.c <<'EOF2'
#include <stdio.h>
#define F(n) __attribute__((noinline)) int f##n(int x) { volatile char pad[2000]; pad[0] = x; return pad[0] + n; }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9)
__attribute__((noinline)) int cold(int x) { static char big[20000]; big[x] = 1; return big[0]; }
int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 5)
		return cold(argc);
	printf("%d\n", f0(1) + f3(2) + f7(3) + f9(4));
	return 0;
}
EOF2
gcc -O1 -ffunction-sections -fdata-sections -c prog.c || fail "compile prog.c"
gcc -o prog.default prog.o -Wl,-Map=prog.map || fail "link prog"
./prog.default > want.out || fail "prog does not run"

# valgrind finds the tool in its own folder, the launcher too
expect_output want.out vg.out "prog under valgrind --tool=pagein" \
	valgrind --tool=pagein -q --granularity=function --out-file="$PWD/vg.trace" ./prog.default
[[ -f vg.trace ]] || fail "valgrind --tool=pagein wrote no trace"
awk '$1 !~ /^#/ && $6 == "f7"' vg.trace | grep -q . || fail "valgrind --tool=pagein: no record of f7: $(head -20 vg.trace)"
expect_output want.out launcher.out "prog under the pagein launcher" \
	pagein --granularity=function --out-file="$PWD/t.trace" -- ./prog.default
awk '$1 !~ /^#/ && $6 == "f7"' t.trace | grep -q . || fail "pagein: no record of f7: $(head -20 t.trace)"

# deporder's order, relinked
run_ok order.ld deporder -q --trace t.trace --map prog.map --emit=gnu-ld --cc -- gcc -o prog prog.o
gcc -o prog prog.o -Wl,-T,order.ld || fail "relink with deporder's script"
expect_output want.out got.out "the relinked program" ./prog
run_ok after.trace.out pagein --out-file="$PWD/after.trace" -- ./prog
run_ok report pagein report after.trace
[[ -s report ]] || fail "pagein report printed nothing"

# startup.mk, found through pkg-config
[[ $(pkg-config --variable=mkdir linkopt) -ef /usr/share/linkopt/mk ]] ||
	fail "pkg-config --variable=mkdir linkopt: $(pkg-config --variable=mkdir linkopt 2>&1)"
cat > Makefile <<EOF2
STARTUP_PROG = mkprog
STARTUP_INPUTS = prog.o
STARTUP_RUN = \$(STARTUP_PROGRAM)
include \$(shell pkg-config --variable=mkdir linkopt)/startup.mk
EOF2
run_ok mk.log make -s startup
[[ -x mkprog && -s .linkopt/mkprog.gnu-ld.order ]] || fail "make startup made no ordered program: $(tail -5 mk.log.err)"
expect_output want.out mk.out "the program startup.mk relinked" ./mkprog

# cygtrace: preloaded by name (the loader's cache), and through pkg-config
ldconfig -p | grep -Eq '=> (/usr)?/lib/libcygtrace.so$' || fail "the loader's cache has no /usr/lib/libcygtrace.so"
gcc -O1 -finstrument-functions -o cyg prog.c || fail "compile with -finstrument-functions"
mkdir cyg-preload cyg-pc
expect_output want.out cyg.out "the instrumented program, libcygtrace.so preloaded" \
	env CYGTRACE_DIR="$PWD/cyg-preload" LD_PRELOAD=libcygtrace.so ./cyg
ls cyg-preload/cygtrace.* > /dev/null 2>&1 || fail "LD_PRELOAD=libcygtrace.so wrote no trace"
gcc -O1 $(pkg-config --cflags linkopt-cygtrace) -o cyg-pc/prog prog.c $(pkg-config --libs linkopt-cygtrace) ||
	fail "link with pkg-config linkopt-cygtrace"
expect_output want.out cyg-pc.out "the program linked with the runtime" env CYGTRACE_DIR="$PWD/cyg-pc" cyg-pc/prog
cygtrace-resolve cyg-pc/cygtrace.* > resolved 2> resolve.err || fail "cygtrace-resolve: $(head -3 resolve.err)"
grep -q ' f7$' resolved || fail "cygtrace-resolve did not resolve f7: $(head -5 resolved)"
[[ $(likely-check cflags) == *"/usr/lib/linkopt/likely-check.h"* ]] || fail "likely-check cflags: $(likely-check cflags)"

# the CMake module: find_package(Linkopt VERSION) and linkopt_startup()
mkdir src
cp prog.c src/
cat > src/CMakeLists.txt <<EOF2
cmake_minimum_required(VERSION 3.21)
project(small C)
add_executable(prog prog.c)
find_package(Linkopt $(cat "$TOP/VERSION") REQUIRED)
linkopt_startup(TARGET prog RUN \$<TARGET_FILE:prog>)
EOF2
run_ok configure.log cmake -S src -B build
grep -qx 'Linkopt_DIR:PATH=/usr/share/linkopt/cmake' build/CMakeCache.txt ||
	fail "find_package(Linkopt) did not take the package's module: $(grep -i linkopt_dir build/CMakeCache.txt)"
grep -qx 'LINKOPT_STARTUP:FILEPATH=/usr/bin/linkopt-startup' build/CMakeCache.txt ||
	fail "the module did not take /usr/bin/linkopt-startup: $(grep LINKOPT_ build/CMakeCache.txt)"
run_ok startup.log cmake --build build --target prog-startup
nm build/prog | grep -q __linkopt_hot_start || fail "build/prog is not linked with its order and linkopt-prefetch.o"
expect_output want.out cmake-prog.out "the program linkopt_startup() ordered" build/prog
echo "flow from the package: done ($((SECONDS - start)) s)"

# dpkg --purge: nothing of the package left
run_dpkg --purge linkopt || fail "dpkg --purge linkopt: $(tail -10 dpkg.log)"
status=$(dpkg-query -W -f='${db:Status-Status}' linkopt 2> /dev/null) || true
[[ -z $status || $status == not-installed ]] || fail "dpkg --purge left linkopt $status"
: > left
while read -r path; do
	[[ $path == /. ]] && continue
	if [[ -d $path && ! -L $path ]]; then
		grep -qxF -- "$path" dirs-before || echo "$path/" >> left
	elif [[ -e $path || -L $path ]]; then
		echo "$path" >> left
	fi
done < installed
expect_empty left "what dpkg --purge left of dpkg -L linkopt"
ls /var/lib/dpkg/info/linkopt.* > dpkg-info 2> /dev/null || true
expect_empty dpkg-info "dpkg's own files of linkopt after the purge"
ldconfig -p | grep -q libcygtrace && fail "the loader's cache still names libcygtrace after the purge"
echo "purged, nothing left ($((SECONDS - start)) s)"
exit 0
