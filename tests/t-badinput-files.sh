#!/bin/bash
# Bad inputs, table-driven: each row is (exit status, stderr pattern,
# arguments).  deporder must not crash, must exit with the status given
# and print an error of the form "deporder: FILE: what failed: why".
. "$(dirname "$0")/lib.sh"

cat > m.c <<'EOF'
int f(void);
int main(void) { return f(); }
EOF
cat > f.c <<'EOF'
int f(void) { return 1; }
EOF
cc_objs -- m.c f.c
make_archive libf.a f.o

printf 'this is neither ELF nor a linker script\n' > notelf.txt
: > empty.o
size=$(stat -c %s m.o)
head -c 16 m.o > trunc16.o
head -c 63 m.o > trunc63.o       # the ELF header is 64 bytes
head -c $((size / 2)) m.o > trunchalf.o
head -c $((size - 8)) m.o > trunctail.o   # section header table cut
head -c 100 libf.a > trunc.a

if gcc -m32 -c -o m32.o m.c 2> /dev/null; then
	:
else
	cp m.o m32.o       # fall back: a copy that claims ELFCLASS32
	printf '\001' | dd of=m32.o bs=1 seek=4 conv=notrunc status=none
fi
cp m.o classpatched.o
printf '\001' | dd of=classpatched.o bs=1 seek=4 conv=notrunc status=none
cp m.o aarch64.o       # e_machine (offset 18) = EM_AARCH64 (183)
printf '\267\000' | dd of=aarch64.o bs=1 seek=18 conv=notrunc status=none
cp m.o bigendian.o     # EI_DATA = ELFDATA2MSB
printf '\002' | dd of=bigendian.o bs=1 seek=5 conv=notrunc status=none
readelf -h aarch64.o 2>/dev/null | grep -q AArch64 || fail "fixture: the e_machine patch did not take"

gcc -O2 -flto -fno-fat-lto-objects -c -o lto.o f.c || fail "cannot compile with -flto"
readelf -S lto.o | grep -q '\.gnu\.lto_' || skip "gcc -flto made no LTO sections"
readelf -s lto.o | grep -q __gnu_lto_slim || fail "fixture: lto.o should be slim (no code)"
rm -f liblto.a
ar rcs liblto.a lto.o 2> /dev/null || fail "cannot archive lto.o"

rm -f libnoindex.a
ar rcS libnoindex.a f.o
if nm -s libnoindex.a 2>/dev/null | grep -q 'Archive index'; then
	fail "fixture: libnoindex.a has an index"
fi

cp libf.a libtext.a
ar q libtext.a notelf.txt && ranlib libtext.a || fail "cannot build libtext.a"

failures=0
row() { # STATUS PATTERN ARG…
	local want=$1 pattern=$2 n=$((++rows))
	shift 2
	DEP_ERR=err.$n
	run_deporder out.$n err.$n "$@"
	if (( DEP_STATUS != want )); then
		printf 'row %d: deporder %s: exit status %d, expected %d; stderr:\n' \
			"$n" "$*" "$DEP_STATUS" "$want" >&2
		sed 's/^/    /' err.$n | head -n 5 >&2
		failures=$((failures + 1))
		return
	fi
	if ! grep -Eiq -- "$pattern" err.$n; then
		printf 'row %d: deporder %s: stderr does not match /%s/; it holds:\n' \
			"$n" "$*" "$pattern" >&2
		sed 's/^/    /' err.$n | head -n 5 >&2
		failures=$((failures + 1))
	fi
}
rows=0
F='--format=members'
row 1 "^deporder: [^ ]*nosuch\.o: .*no such file" $F m.o nosuch.o libf.a
row 1 "^deporder: [^ ]*nosuch\.a: .*no such file" $F m.o nosuch.a
row 1 "^deporder: .*cannot find.*-lnosuch|^deporder: .*nosuch.*: " $F m.o -L. -lnosuch
row 1 "^deporder: [^ ]*notelf\.txt: .*(elf|linker script|format)" $F m.o notelf.txt libf.a
row 1 "^deporder: [^ ]*empty\.o: " $F m.o empty.o libf.a
row 1 "^deporder: [^ ]*trunc16\.o: .*(truncat|short|too small|eof|end of file|invalid|corrupt)" $F trunc16.o libf.a
row 1 "^deporder: [^ ]*trunc63\.o: .*(truncat|short|too small|eof|end of file|invalid|corrupt)" $F trunc63.o libf.a
row 1 "^deporder: [^ ]*trunchalf\.o: .*(truncat|short|too small|eof|end of file|invalid|corrupt)" $F trunchalf.o libf.a
row 1 "^deporder: [^ ]*trunctail\.o: .*(truncat|short|too small|eof|end of file|invalid|corrupt)" $F trunctail.o libf.a
row 1 "^deporder: [^ ]*trunc\.a" $F m.o trunc.a
row 1 "^deporder: [^ ]*m32\.o: .*(class|32)" $F m32.o libf.a
row 1 "^deporder: [^ ]*classpatched\.o: .*(class|32)" $F classpatched.o libf.a
row 1 "^deporder: [^ ]*aarch64\.o: .*(machine|aarch64|183)" $F aarch64.o libf.a
row 1 "^deporder: [^ ]*bigendian\.o: .*(endian|byte order|msb|data encoding|invalid|machine)" $F bigendian.o libf.a
row 1 "^deporder: [^ ]*lto\.o: .*-ffat-lto-objects" $F m.o lto.o
row 1 "^deporder: [^ ]*lto\.o.*-ffat-lto-objects" $F m.o liblto.a
row 1 "^deporder: [^ ]*libnoindex\.a: .*(index|ranlib|armap)" $F m.o libnoindex.a
row 1 "^deporder: .*libtext\.a.*notelf\.txt" $F m.o --whole-archive libtext.a --no-whole-archive
row 1 "^deporder: [^ ]*nosuch\.o: .*no such file" --cc -- gcc -o prog m.o nosuch.o libf.a
row 1 "^deporder: [^ ]*m32\.o: .*(class|32)" --cc -- gcc -o prog m32.o libf.a

# With an index, ld never reads the text member of libtext.a: it links.
# deporder may do the same (exit 0, ld's members) or reject the archive
# naming the member (exit 1); anything else fails.
ld -o ref -Map=ref.map -e main m.o libtext.a || fail "fixture: ld rejects libtext.a"
ldmap_members ref.map > ref.members
DEP_ERR=text.err
run_deporder text.out text.err --format=members -e main m.o libtext.a
case $DEP_STATUS in
0)
	normalize text.out > text.members
	expect_same ref.members text.members "members with libtext.a" ;;
1)
	expect_grep "^deporder: .*libtext\.a.*notelf\.txt" text.err "error for libtext.a" ;;
*)
	fail "deporder m.o libtext.a: exit status $DEP_STATUS" ;;
esac

(( failures == 0 )) || fail "$failures of $rows rows failed"
