#!/bin/bash
# linkopt_startup() refuses at configure time what cannot be ordered, with
# a message: a static library (never linked), a name that is no target, no
# RUN, an unknown LINKER or PLACEMENT, a READ_AHEAD_KB or an
# UNTRACED_SEGMENT_KB that is no number,
# a target given twice, data-first for another linker than GNU ld; a good
# call configures, its placement (and UNTRACED_SEGMENT_KB, RELR, BOLT,
# LLVM_BOLT, CHECK, best's BEST_WITHOUT and REQUEST_PAGES) passed on; a
# BEST_WITHOUT word that is not a candidate kind, or without best,
# refused, and a REQUEST_PAGES that is no number or without best.
. "$(dirname "$0")/lib.sh"
need cmake gcc
printf 'int f(void) { return 0; }\n' > f.c
printf 'int f(void);\nint main(void) { return f(); }\n' > main.c

# configure CALL: a project with a static and a shared library and a
# program, then CALL; status in STATUS, messages in err
configure() {
	rm -rf build
	cat > CMakeLists.txt <<EOF2
cmake_minimum_required(VERSION 3.21)
project(usage C)
add_library(fstatic STATIC f.c)
add_library(fshared SHARED f.c)
add_executable(prog main.c)
target_link_libraries(prog fshared)
find_package(Linkopt REQUIRED)
$1
EOF2
	STATUS=0
	cmake -S . -B build -DLinkopt_DIR="$TOP/cmake" > out 2> err || STATUS=$?
}
refused() { # CALL PATTERN
	configure "$1"
	((STATUS != 0)) || fail "cmake accepted: $1"
	# cmake wraps its messages: one line
	tr -s ' \n' '  ' < err > err.line
	expect_grep "$2" err.line "cmake's messages for: $1"
}
refused 'linkopt_startup(TARGET fstatic RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: fstatic is a STATIC_LIBRARY, not linked: order the program or shared library that links it'
refused 'linkopt_startup(TARGET nothing RUN $<TARGET_FILE:prog>)' 'linkopt_startup: nothing is not a target'
refused 'linkopt_startup(TARGET prog)' 'linkopt_startup: no RUN command given'
refused 'linkopt_startup(TARGET prog LINKER bfd RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: LINKER bfd: not one of gnu-ld, gold, lld, mold'
refused 'linkopt_startup(TARGET prog RUN $<TARGET_FILE:prog>)
linkopt_startup(TARGET prog NAME again RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: prog is already ordered by another linkopt_startup call'
refused 'linkopt_startup(TARGET prog PLACEMENT tail RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: PLACEMENT tail: not head, cold-start, data-first or best'
refused 'linkopt_startup(TARGET prog PLACEMENT cold-start READ_AHEAD_KB 12x RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: READ_AHEAD_KB 12x: not a number of KiB'
refused 'linkopt_startup(TARGET prog PLACEMENT cold-start UNTRACED_SEGMENT_KB 16k RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: UNTRACED_SEGMENT_KB 16k: not a number of KiB'
configure 'linkopt_startup(TARGET fshared prog PLACEMENT cold-start UNTRACED_SEGMENT_KB 16 RUN $<TARGET_FILE:prog> HOST prog)'
((STATUS == 0)) || fail "a call with UNTRACED_SEGMENT_KB was refused: $(cat err)"
grep -rq -- '--placement=cold-start.*--untraced-segment-kb=16' build/CMakeFiles build/Makefile build/build.ninja 2> /dev/null ||
	fail "the startup target does not pass UNTRACED_SEGMENT_KB on"
configure 'linkopt_startup(TARGET fshared prog LINKER gold PLACEMENT cold-start READ_AHEAD_KB 64
                RUN $<TARGET_FILE:prog> HOST prog)'
((STATUS == 0)) || fail "a good call was refused: $(cat err)"
# the custom target runs linkopt-startup with that placement
grep -rq -- '--placement=cold-start.*--read-ahead-kb=64' build/CMakeFiles build/Makefile build/build.ninja 2> /dev/null ||
	fail "the startup target does not pass the placement on"
grep -q '^fshared-startup:' <(cmake --build build --target help 2>&1 | sed 's/^\.\.\. //; s/ .*//; s/$/:/') ||
	fail "no fshared-startup target: $(cmake --build build --target help 2>&1 | head)"
configure 'linkopt_startup(TARGET fshared prog PLACEMENT data-first RELR BOLT LLVM_BOLT llvm-bolt-22
                CHECK "true" RUN $<TARGET_FILE:prog> HOST prog)'
((STATUS == 0)) || fail "a call with RELR, BOLT, LLVM_BOLT and CHECK was refused: $(cat err)"
grep -rq -- '--placement=data-first.*--relr.*--bolt.*--llvm-bolt=llvm-bolt-22.*--check=true' build/CMakeFiles \
	build/Makefile build/build.ninja 2> /dev/null || fail "the startup target does not pass RELR, BOLT, LLVM_BOLT, CHECK on"
refused 'linkopt_startup(TARGET prog PLACEMENT data-first LINKER lld RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: PLACEMENT data-first is a GNU ld script: it needs LINKER gnu-ld'
refused 'linkopt_startup(TARGET prog PLACEMENT best BEST_WITHOUT relr pgo RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: BEST_WITHOUT pgo: not relr, bolt, segments, cut or cross'
refused 'linkopt_startup(TARGET prog PLACEMENT cold-start BEST_WITHOUT bolt RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: BEST_WITHOUT is for PLACEMENT best'
refused 'linkopt_startup(TARGET prog PLACEMENT best REQUEST_PAGES many RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: REQUEST_PAGES many: not a number of pages'
refused 'linkopt_startup(TARGET prog PLACEMENT head REQUEST_PAGES 0 RUN $<TARGET_FILE:prog>)' \
	'linkopt_startup: REQUEST_PAGES is for PLACEMENT best'
configure 'linkopt_startup(TARGET prog PLACEMENT best BEST_WITHOUT segments bolt REQUEST_PAGES 0 RUN $<TARGET_FILE:prog>)'
((STATUS == 0)) || fail "a call with BEST_WITHOUT and REQUEST_PAGES was refused: $(cat err)"
grep -rq -- '--placement=best.*--request-pages=0.*--no-segments.*--no-bolt' build/CMakeFiles build/Makefile \
	build/build.ninja 2> /dev/null || fail "the startup target does not pass REQUEST_PAGES and BEST_WITHOUT on"
grep -rq -- '--no-relr' build/CMakeFiles build/Makefile build/build.ninja 2> /dev/null &&
	fail "BEST_WITHOUT segments bolt left relr out too"
exit 0
