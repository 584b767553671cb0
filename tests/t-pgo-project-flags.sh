#!/bin/bash
# The -O0 trap: a Makefile with CFLAGS ?= -O3 and a configure script with
# CFLAGS="${CFLAGS--O3}" lose their -O3 when the build gets CFLAGS from
# the environment.  pgo-run adds its flags through its compiler wrapper
# instead, so both build at -O3, as the objects record; and a build that
# does not compile with the plain build's options is refused, naming the
# difference, and its profile is not installed.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need readelf

# records OBJECT: the options gcc recorded in the object, on one line.
records() {
	readelf -p .GCC.command.line "$1" 2> /dev/null | sed -n 's/^ *\[ *[0-9a-f]*\]  //p' | tr '\n' ' '
}

# built_at_O3 DIR: the optimized build in DIR compiled at -O3 with the
# profile, by make's log and by the objects themselves.
built_at_O3() {
	local log
	log=$(echo "$1"/.pgo/*/logs/use-build.log)
	expect_grep '^cc .*-O3.* -c' "$log" "the optimized build's compile commands"
	expect_no_grep '^cc .*-O0' "$log" "the optimized build's compile commands"
	for o in "$1"/main.o "$1"/work.o; do
		[[ $(records "$o") =~ -O3\ .*-fprofile-use= ]] ||
			fail "$o was not built at -O3 with the profile: $(records "$o")"
	done
}

# a Makefile that sets CFLAGS only when nobody did (lz4's own)
sample_project m
cat > m/Makefile <<'MK'
CFLAGS ?= -O3
CFLAGS += -Wall
prog: main.o work.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ main.o work.o
clean:
	rm -f prog *.o *.gcno
MK
(cd m && pgo_ok ../out-m ../err-m --build make --clean 'make clean' './prog 1')
built_at_O3 m
expect_grep '^\[options\] optimized build: the 3 outputs it shares with the plain build have its options' out-m

# a configure script that keeps the CFLAGS it is given (zlib's, expat's)
sample_project c
rm c/Makefile
cat > c/configure <<'SH'
#!/bin/sh
CFLAGS="${CFLAGS--O3}"
cat > Makefile <<MK
CFLAGS = $CFLAGS
prog: main.o work.o
	\$(CC) \$(CFLAGS) -o \$@ main.o work.o
clean:
	rm -f prog *.o *.gcno
MK
SH
chmod +x c/configure
(cd c && pgo_ok ../out-c ../err-c --build './configure && make' --clean 'rm -f prog *.o *.gcno' './prog 1')
built_at_O3 c

# the instrumented build in a folder configured otherwise (-O0) than the
# plain and optimized builds' (-O3): refused, the profile not installed
sample_project g
sample_project u
sed -i 's/^CFLAGS = -O2$/CFLAGS = -O0/' g/Makefile
sed -i 's/^CFLAGS = -O2$/CFLAGS = -O3/' u/Makefile
pgo out-g err-g --gen-dir g --use-dir u './g/prog 1'
pgo_status 1 "an instrumented build at other options than the plain one"
expect_grep "^pgo-run: work.o: built with -O0 -fprofile-generate=[^ ]* -fprofile-update=prefer-atomic -ftest-coverage -fprofile-prefix-path=$PWD/g where the plain build used -O3: the instrumented build replaced the project's flags$" err-g
expect_grep '^\[total\] failed; the profile in use is none$' out-g
expect_no_grep '^\[optimized build\]' out-g
pgo status-g err status
expect_grep '^profile: none$' status-g

# an optimized build that changes its options when the profile is there
sample_project o
cat > o/build.sh <<'SH'
#!/bin/sh
case $PGO_RUN_CFLAGS in *-fprofile-use*) opt=-O1 ;; *) opt=-O2 ;; esac
make CFLAGS="$opt"
SH
chmod +x o/build.sh
(cd o && pgo ../out-o ../err-o --build ./build.sh --clean 'make clean' './prog 1')
pgo_status 1 "an optimized build at other options than the plain one"
expect_grep "^pgo-run: main.o: built with -O1 -fprofile-use=[^ ]* -fprofile-prefix-path=$PWD/o where the plain build used -O2: the optimized build replaced the project's flags$" err-o
expect_grep "^pgo-run: prog: built with -O1 " err-o
