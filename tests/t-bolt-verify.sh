#!/bin/bash
# Whatever linkopt-bolt writes is proved loadable first, --no-check
# included: its program headers, its dynamic table and the pointers the
# loader relocates, against the input's (lib/loadable.h), then one load by
# the dynamic loader as ldd -r does.  A stand-in llvm-bolt (it says it is
# BOLT 16, or FAKE_VERSION) copies the input with one defect made by
# elf-corrupt.c; each row: the defect, the BOLT version it claims, what
# linkopt-bolt must say.  Each is refused with exit status 1, nothing is
# written and no temporary is left; without a defect the copy is written,
# and so is one whose DT_RELA holds the same relocations in another order
# (as BOLT 22 writes a library's).
# BOLT's known defect on a -z pack-relative-relocs link (BOLT 17 and
# later) is named with its fix.
. "$(dirname "$0")/lib.sh"
need gcc
LB=$TOP/linkopt-bolt/linkopt-bolt
[[ -x $LB ]] || fail "linkopt-bolt is not built"

cp "$TESTDIR/bolt-relr.c" prog.c
gcc -O2 -g -Wl,--emit-relocs -Wl,--build-id -Wl,-z,pack-relative-relocs -o prog prog.c ||
	fail "cannot build prog"
./prog 100 > want || fail "prog does not run"
# without -z pack-relative-relocs: its relative relocations in DT_RELA
gcc -O2 -g -Wl,--emit-relocs -Wl,--build-id -o prog-rela prog.c || fail "cannot build prog-rela"
gcc -O1 -o elf-corrupt "$TESTDIR/elf-corrupt.c" || fail "cannot build elf-corrupt"
printf '1 main 0 1 hot 0 0 10\n' > prog.fdata
cat > fake-bolt <<EOF2
#!/bin/sh
[ "\$1" = --version ] && { echo "LLVM version \${FAKE_VERSION:-16}.0.6"; exit 0; }
in=\$1
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
exec "$PWD/elf-corrupt" "\$MODE" "\$in" "\$out"
EOF2
chmod +x fake-bolt

echo earlier > out
# mode|BOLT version|what linkopt-bolt says (the input: prog, or prog-rela
# for a mode that names DT_RELA)
while IFS='|' read -r mode version pattern; do
	input=./prog
	[[ $mode == rela* ]] && input=./prog-rela
	MODE=$mode FAKE_VERSION=$version expect_exit 1 run.out "$LB" -q --bolt "$PWD/fake-bolt" --fdata prog.fdata \
		--no-check -o out $input
	tr '\n' ' ' < run.out.err > run.flat   # the message and its list of defects, on one line
	expect_grep "$pattern" run.flat "$mode"
	expect_grep "out is not written" run.flat "$mode"
	[[ $(cat out) == earlier ]] || fail "$mode: out was replaced"
	ls -d out.tmp* > /dev/null 2>&1 && fail "$mode: left behind: $(ls -d out.tmp*)"
done <<'EOF2'
relrent|16|BOLT 16's output would not load as the input does.*lacks 1 of the input's [0-9]+ tags: DT_RELRENT
relrent|22|BOLT 22's output would not load .*-z pack-relative-relocs.*relink without -z pack-relative-relocs, or use BOLT 16
relrsz|16|DT_RELRSZ: 1054464 \(0x101700\), the input's [0-9]+
unknown|16|entries of tags the input has not: tag 0x7534 \(0x7538\)
init-array|16|DT_INIT_ARRAY\[0\] at 0x[0-9a-f]+ holds 0x[0-9a-f]+, where the input's holds 0x[0-9a-f]+ \(frame_dummy\)
pointer|16|data: the pointer at 0x[0-9a-f]+ holds 0x[0-9a-f]+ \(op_add\), where the input's holds 0x[0-9a-f]+ \(op_mul\)
stray|16|data: 1 bytes of the writable segments changed where no relocation lies
overlap|16|PT_LOAD 3 \[0x100, .*overlaps the one before it
misalign|16|PT_LOAD [0-9]+: offset 0x[0-9a-f]+ and address 0x[0-9a-f]+ differ modulo its alignment
interp|16|PT_INTERP does not name /lib64/ld-linux-x86-64.so.2 as the input's does
relacount|16|DT_RELACOUNT says [0-9]+ relative relocations come first, entry 0 is not one
symbol|16|the loader \(.*, as ldd -r\) does not load the rewritten binary as it loads the input \(.*rintf
EOF2

# the relocations of DT_RELA in another order are no defect
MODE=rela-order run_ok run.out "$LB" -q --bolt "$PWD/fake-bolt" --fdata prog.fdata --no-check -o reordered ./prog-rela
expect_output want run.out "DT_RELA in another order" ./reordered 100

# the copy without a defect is written, runs, and has the umask's mode
umask 022
MODE=none run_ok run.out "$LB" --bolt "$PWD/fake-bolt" --fdata prog.fdata --no-check -o new ./prog
expect_grep '^load: .* loads and relocates the rewritten binary as it does \./prog$' run.out "the summary"
expect_output want run.out "the written copy" ./new 100
[[ $(stat -c %a new) == 755 ]] || fail "the new output has mode $(stat -c %a new), not 755 (umask 022)"
exit 0
