#!/bin/bash
# A PGO build silently at -O0: gcc uses a profile only when it optimizes
# (at -O0 the object is the same with -fprofile-use as without), so a
# project that compiles at -O0, or with no -O at all, got "profile
# installed" and exit 0 with nothing sped up.  pgo-run now refuses such an
# instrumented build (once it knows the plain build used the same options),
# naming the outputs and what to do, and installs no profile; the last -O option counts (-O2 -O0 is -O0); a
# build where only some outputs are unoptimized is trained, with a warning
# naming them.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

# project DIR FLAGS-OF-main.o FLAGS-OF-work.o
project() {
	sample_project "$1"
	cat > "$1/Makefile" <<MK
prog: main.o work.o
	\$(CC) -o \$@ main.o work.o
main.o: main.c
	\$(CC) $2 -c main.c
work.o: work.c
	\$(CC) $3 -c work.c
clean:
	rm -f prog *.o *.gcno
MK
}

for flags in "-O0 -g" "-g" "-O2 -O0"; do
	d=p${flags// /}
	project "$d" "$flags" "$flags"
	cd "$d" && pgo ../out ../err './prog 1' && cd ..
	pgo_status 1 "pgo-run on a build with $flags"
	expect_grep "^pgo-run: the instrumented build compiled without optimization \\(-O0, or no -O: (main\\.o, work\\.o|work\\.o, main\\.o)(, prog)?|.*\\): gcc uses a profile only when it optimizes" \
		err "pgo-run on a build with $flags"
	expect_grep "build at -O1 or more \\(make CFLAGS='-O2 -g'" err "the advice"
	[[ -e $d/.pgo/*/profile ]] && fail "a profile was installed for a build with $flags: $(ls -l "$d"/.pgo/*/profile)"
done

# the last -O counts: -O0 -O2 optimizes
project last "-O0 -O2" "-O0 -O2"
(cd last && pgo_ok ../out ../err './prog 1')
expect_no_grep 'without optimization' err "a build with -O0 -O2"

# one object at -O0 among optimized ones: trained, with a warning naming it
project mixed "-O2" "-O0"
(cd mixed && pgo_ok ../out ../err './prog 1')
expect_grep '^pgo-run: warning: 1 output compiled without optimization \(-O0, or no -O\), which the profile cannot speed up: work\.o$' \
	err "a build with one object at -O0"
[[ -e mixed/.pgo/$(ls mixed/.pgo | grep -v lock | head -1)/profile ]] || fail "no profile installed for the mixed build"
exit 0
