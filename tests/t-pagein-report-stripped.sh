#!/bin/bash
# pagein-report --read-ahead-kb on a strip -o copy of a link made with
# --emit-relocs: strip removes the relocation sections and leaves the
# dynamic symbols (environ, copied into the program's .bss) naming section
# indexes past the new section table.  The loader reads their values, never
# their sections, and the program runs; the report reads the file as the
# loader does and gives its cold-start figure: without read-ahead, the pages
# of the file the trace touches (counted through readelf's program
# headers); with 128 KiB, a figure too.  A full symbol table (.symtab) that
# names a section past the table is still refused as corrupt.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/coldstart-lib.sh"
need_pagein
need readelf strip python3
REPORT=$TOP/pagein/pagein-report

cat > m.c <<'EOF2'
#include <stdio.h>
extern char **environ;
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d %s\n", argc, environ[0] ? "with an environment" : "without");
	return 0;
}
EOF2
cc_obj m.o m.c -g
gcc -o prog m.o -Wl,--emit-relocs || fail "the link with --emit-relocs"
strip -o prog-stripped prog || fail "strip -o"
readelf --dyn-syms -W prog-stripped > dynsym.txt 2>&1
expect_grep 'bad section index.* environ@' dynsym.txt "the stripped copy's dynamic symbols (the fixture)"
run_ok want.out ./prog
expect_output want.out got.out "the stripped copy's output" ./prog-stripped

"$PAGEIN" --output="$PWD/stripped.trace" -- ./prog-stripped > /dev/null 2> pagein.err ||
	fail "pagein on the stripped copy: $(head -3 pagein.err)"
file_pages stripped.trace "$PWD/prog-stripped" > touched.pages
run_ok report0.out "$REPORT" --read-ahead-kb=0 stripped.trace
expect_empty report0.out.err "pagein-report's standard error"
awk 'NR == 3 { print $1, $4 }' report0.out > got.row
echo "$PWD/prog-stripped $(wc -l < touched.pages)" > want.row
expect_same want.row got.row "the stripped copy's cold start without read-ahead (path, file pages)"
run_ok report128.out "$REPORT" --read-ahead-kb=128 stripped.trace
expect_grep "^  $PWD/prog-stripped +[0-9]+ +[0-9]+  [1-9][0-9]* \\([1-9][0-9]*\\)\$" report128.out \
	"the stripped copy's cold start at 128 KiB"

# The unstripped link, its symbol table's 'main' made to name section
# 0x1234: refused.
"$PAGEIN" --output="$PWD/prog.trace" -- ./prog > /dev/null 2> pagein.err ||
	fail "pagein on the program: $(head -3 pagein.err)"
python3 - prog <<'EOF2' || fail "cannot patch prog's symbol table"
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
shoff, = struct.unpack_from('<Q', data, 0x28)
shentsize, shnum = struct.unpack_from('<HH', data, 0x3a)
sections = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
symtab = next(s for s in sections if s[1] == 2)
strtab = sections[symtab[6]]
for off in range(symtab[4], symtab[4] + symtab[5], 24):
    name, = struct.unpack_from('<I', data, off)
    start = strtab[4] + name
    if data[start:data.index(b'\0', start)] == b'main':
        struct.pack_into('<H', data, off + 6, 0x1234)
        open(path, 'wb').write(data)
        sys.exit(0)
sys.exit(1)
EOF2
expect_exit 1 corrupt.out "$REPORT" --read-ahead-kb=0 prog.trace
expect_grep "^pagein-report: prog\\.trace: no cold-start figure: cannot read ELF: symbol 'main' names section 4660 of [0-9]+\$" \
	corrupt.out.err "a symbol table naming a section past the table"
exit 0
