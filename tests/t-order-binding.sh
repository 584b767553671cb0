#!/bin/bash
# deporder orders from a trace only when its inputs are proven to belong
# together, each case below a silent wrong order before:
#  - a trace of another program (its records fall into the map by luck);
#  - a trace of the binary relinked (ordered) since the map was written;
#  - a shared library traced through its host, without --trace-object:
#    the library is the traced object with its build-id, not the host;
#  - a map holding two links (a parallel build sharing one -Map file), and
#    a map cut short;
#  - objects built without -ffunction-sections: said, with the fix.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need_deporder

cat > prog.c <<'EOF2'
#include <stdio.h>
__attribute__((noinline)) int f0(int x) { return x + 1; }
__attribute__((noinline)) int f1(int x) { return x * 3; }
__attribute__((noinline)) int f2(int x) { return x - 7; }
__attribute__((noinline)) int f3(int x) { return x ^ 5; }
int main(int argc, char **argv)
{
	printf("%d\n", f3(f1(argc)) + (argc > 5 ? f2(1) : f0(2)));
	return 0;
}
EOF2
gcc -O1 -ffunction-sections -c prog.c || fail "cannot compile prog.c"
gcc -o prog prog.o -Wl,-Map=prog.map || fail "cannot link prog"
"$PAGEIN" --granularity=function --output="$PWD/prog.trace" -- ./prog > /dev/null 2>&1 || fail "pagein ./prog"

order() { # deporder ARGS...: status in $status, stderr in err
	status=0
	"$DEPORDER" -q --granularity=section --no-data "$@" --cc -- gcc -o prog prog.o > out 2> err || status=$?
}

# The right inputs: accepted.
order --trace prog.trace --map prog.map
((status == 0)) || fail "the program's own trace was refused: $(head -3 err)"

# A trace of another program.
"$PAGEIN" --granularity=function --output="$PWD/true.trace" -- /bin/true > /dev/null 2>&1 || fail "pagein true"
order --trace true.trace --map prog.map
((status == 1)) || fail "a trace of /bin/true was accepted (status $status)"
id=$(readelf -n prog | sed -n 's/.*Build ID: //p')
expect_grep "true\.trace: no traced object is prog \(build-id $id\): it holds .*true \(build-id [0-9a-f]+\)" err \
	"a foreign trace"

# The binary relinked (the functions in another order) and traced again,
# with the first link's map.
gcc -o prog prog.o -Wl,--sort-section=name -Wl,-Ttext-segment=0x20000 || fail "cannot relink prog"
"$PAGEIN" --granularity=function --output="$PWD/relinked.trace" -- ./prog > /dev/null 2>&1 || fail "pagein relinked"
order --trace relinked.trace --map prog.map
((status == 1)) || fail "a trace of the relinked binary was accepted with the old map (status $status)"
expect_grep "prog\.map: does not describe prog: [0-9]+ of [0-9]+ symbols are elsewhere" err "a relinked binary"
gcc -o prog prog.o -Wl,-Map=prog.map || fail "cannot link prog again"

# A map holding two links, and a map cut short.
gcc -o other prog.o -Wl,-Map=other.map || fail "cannot link other"
cat prog.map other.map > both.map
order --trace prog.trace --map both.map
((status == 1)) || fail "a map of two links was accepted (status $status)"
expect_grep "both\.map: holds 2 links \(outputs: prog, other\): several links wrote one -Map file" err "two links"
# The map of another program of the build (one -Map flag for every link):
# the refusal says the map is another link's.
gcc -o another prog.o -Wl,--sort-section=name -Wl,-Ttext-segment=0x20000 -Wl,-Map=another.map || fail "cannot link another"
order --trace prog.trace --map another.map
((status == 1)) || fail "another program's map was accepted (status $status)"
expect_grep "the map is of 'another' while the link writes 'prog': the map may be another link's" err "another link's map"
head -n 200 prog.map > cut.map
order --trace prog.trace --map cut.map
((status == 1)) || fail "a map cut short was accepted (status $status)"
expect_grep "cut\.map: cut short: no OUTPUT\(\.\.\.\) line" err "a cut map"

# A library traced through its host: the library is ordered, without
# --trace-object.
cat > lib.c <<'EOF2'
__attribute__((noinline)) int l_cold(int x) { return x * 11; }
__attribute__((noinline)) int l_hot(int x) { return x + 3; }
int l_entry(int x) { return l_hot(x); }
EOF2
printf 'int l_entry(int);\nint main(void) { return l_entry(1) == 4 ? 0 : 1; }\n' > host.c
gcc -O1 -fPIC -ffunction-sections -c lib.c host.c && gcc -shared -o libl.so lib.o -Wl,-Map=libl.map &&
	gcc -o host host.o -L. -ll -Wl,-rpath,"$PWD" || fail "cannot build the library and its host"
"$PAGEIN" --granularity=function --output="$PWD/host.trace" -- ./host > /dev/null 2>&1 || fail "pagein host"
status=0
"$DEPORDER" -q --granularity=section --no-data --trace host.trace --map libl.map \
	--cc -- gcc -shared -o libl.so lib.o > lib.order 2> err || status=$?
((status == 0)) || fail "the library's order was refused: $(head -3 err)"
expect_grep "host\.trace: [0-9]+ records of $PWD/libl\.so: " err "the library chosen as the traced object"
grep -P '^lib\.o\t\.text\.' lib.order | head -n 2 | sort > first
printf 'lib.o\t.text.l_%s\n' entry hot > want
expect_same want first "the library's first functions in the order"

# The program's map given for the library's link (one -Map for a whole
# build leaves the last link's): refused for what it is.
status=0
"$DEPORDER" -q --granularity=section --trace host.trace --map prog.map --binary prog \
	--cc -- gcc -shared -o libl.so lib.o > /dev/null 2> err || status=$?
((status == 1)) || fail "a program's map was accepted for a -shared link (status $status)"
expect_grep "prog\.map: is the map of the program prog, but the link is -shared" err "a program's map for a library"

# and the library's map given for the program's link
status=0
"$DEPORDER" -q --granularity=section --trace host.trace --map libl.map \
	--cc -- gcc -o host host.o -L. -ll > /dev/null 2> err || status=$?
((status == 1)) || fail "a library's map was accepted for a program's link (status $status)"
expect_grep "libl\.map: is the map of the shared library libl\.so, but the link makes a program" err \
	"a library's map for a program"

# libtool runs the link it is given (and replaces its outputs): --cc
# refuses it before anything runs.
cat > libtool <<'EOF2'
#!/bin/sh
rm -f victim
exit 0
EOF2
chmod +x libtool
touch victim
status=0
"$DEPORDER" --cc -- ./libtool --mode=link gcc -o prog prog.o > /dev/null 2> err || status=$?
((status == 1)) || fail "--cc ran libtool (status $status)"
[[ -e victim ]] || fail "--cc ran libtool: it removed a file"
expect_grep "^deporder: --cc: '\./libtool' is libtool, which runs the link it is given" err "libtool refused"

# Objects built without -ffunction-sections: the warning names the loss
# and the fix.
gcc -O1 -c prog.c -o whole.o && gcc -o whole whole.o -Wl,-Map=whole.map || fail "cannot build whole"
"$PAGEIN" --granularity=function --output="$PWD/whole.trace" -- ./whole > /dev/null 2>&1 || fail "pagein whole"
status=0
"$DEPORDER" --granularity=section --no-data --trace whole.trace --map whole.map --cc -- gcc -o whole whole.o \
	> /dev/null 2> err || status=$?
((status == 0)) || fail "whole: status $status: $(head -3 err)"
expect_grep "warning: 1 of the 1 traced code sections hold several functions each \(whole\.o\(\.text\): 5 functions\).*compile with -ffunction-sections" \
	err "the -ffunction-sections warning"
exit 0
