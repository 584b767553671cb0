#!/bin/bash
# deporder --emit without traces, form by form, on a link of objects and
# an archive member: GNU ld's file patterns (path, archive:member), each
# input section under its output section (code, read-only data, data, bss),
# whole units as code only; lld's symbols (whole units: functions only) and gold's section
# names, each once though two objects define a static helper of the same
# name; gold refuses whole units.  The scripts link and the programs run.
. "$(dirname "$0")/lib.sh"
need_deporder

cat > m.c <<'EOF2'
#include <stdio.h>
int a1(int);
int t1(int);
const int table[4] = { 3, 1, 4, 1 };
int counter = 5;
int zero_buf[64];
static __attribute__((noinline)) int helper(int x) { return x * 7 + zero_buf[x & 63]; }
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", helper(argc) + a1(argc) + t1(argc) + table[argc & 3] + counter);
	return 0;
}
EOF2
cat > a.c <<'EOF2'
int adata = 3;
static __attribute__((noinline)) int helper(int x) { return x + adata; }
int a1(int x) { return helper(x) * 2; }
EOF2
cat > t.c <<'EOF2'
int t1(int x) { return x + 11; }
EOF2
cc_objs -ffunction-sections -fdata-sections -- m.c a.c t.c
make_archive libarc.a a.o
gcc -o prog-default m.o t.o libarc.a || fail "the default link"
./prog-default > want.out || fail "the default program"
link=(--cc -- gcc -o prog m.o t.o libarc.a)

# in_block OUTPUT FILE: the lines linkopt inserted at the head of OUTPUT.
in_block() {
	awk -v head="    /* linkopt: the ordered input sections of $1, first used first */" \
		'$0 == head { on = 1; next } on && /linkopt: end/ { on = 0 } on' "$2"
}

deporder_ok section.ld section.err -q --granularity=section --emit=gnu-ld "${link[@]}"
expect_grep '^/\* deporder \(linkopt [^)]*\): [0-9]+ units in dependency order; link: ' section.ld "the provenance"
in_block .text section.ld > text.block
expect_grep '^    m\.o\(\.text\.main\)$' text.block "the script's .text list"
expect_grep '^    m\.o\(\.text\.helper\)$' text.block "the script's .text list"
expect_grep '^    libarc\.a:a\.o\(\.text\.a1\)$' text.block "an archive member's pattern"
expect_grep '^    t\.o\(\.text\.t1\)$' text.block "the script's .text list"
# No traces: the hot range is empty, at the head of .text.
head -2 text.block > got
printf '    PROVIDE_HIDDEN(__linkopt_hot_%s = .);\n' start end > want
expect_same want got "the hot range without traces"
in_block .rodata section.ld > rodata.block
expect_grep '^    m\.o\(\.rodata\.table\)$' rodata.block "the script's .rodata list"
in_block .data section.ld > data.block
expect_grep '^    m\.o\(\.data\.counter\)$' data.block "the script's .data list"
expect_grep '^    libarc\.a:a\.o\(\.data\.adata\)$' data.block "the script's .data list"
in_block .bss section.ld > bss.block
expect_grep '^    m\.o\(\.bss\.zero_buf\)$' bss.block "the script's .bss list"
expect_no_grep '\((\.rodata|\.data|\.bss)' text.block "the script's .text list"
gcc -o prog-section m.o t.o libarc.a -Wl,-T,section.ld || fail "link with the section script"
expect_output want.out got.out "the section-ordered program's output" ./prog-section

deporder_ok object.ld object.err -q --emit=gnu-ld "${link[@]}"
in_block .text object.ld > text.block
expect_grep '^    m\.o\(\.text \.text\.\*\)$' text.block "whole units in .text"
expect_grep '^    libarc\.a:a\.o\(\.text \.text\.\*\)$' text.block "a whole archive member in .text"
expect_grep '^    t\.o\(\.text \.text\.\*\)$' text.block "whole units in .text"
in_block .data object.ld > data.block
expect_empty data.block "whole units in .data"
gcc -o prog-object m.o t.o libarc.a -Wl,-T,object.ld || fail "link with the object script"
expect_output want.out got.out "the object-ordered program's output" ./prog-object

deporder_ok section.lld lld.err -q --granularity=section --emit=lld "${link[@]}"
expect_grep '^# deporder \(linkopt ' section.lld "lld's provenance"
for s in main helper a1 t1 table counter zero_buf adata; do
	expect_grep "^$s\$" section.lld "lld's symbols"
done
[[ $(grep -c '^helper$' section.lld) == 1 ]] || fail "lld's symbols: helper is not listed once"
deporder_ok object.lld lld.err -q --emit=mold "${link[@]}"
expect_grep '^a1$' object.lld "lld's symbols of whole units"
expect_no_grep '^(table|counter|zero_buf|adata)$' object.lld "lld's symbols of whole units"

deporder_ok section.gold gold.err -q --granularity=section --emit=gold "${link[@]}"
expect_grep '^# deporder \(linkopt ' section.gold "gold's provenance"
for s in .text.main .text.a1 .text.t1 .rodata.table .data.counter .bss.zero_buf; do
	expect_grep "^${s//./\\.}\$" section.gold "gold's sections"
done
[[ $(grep -c '^\.text\.helper$' section.gold) == 1 ]] || fail "gold's sections: .text.helper is not listed once"
DEP_ERR=gold-object.err
run_deporder gold-object.out gold-object.err -q --emit=gold "${link[@]}"
expect_status 2 "gold with whole units"
expect_grep '^deporder: gold orders input sections by name: use --granularity=section$' gold-object.err \
	"gold with whole units"

# Without traces the call graph has no edges: only its provenance.
deporder_ok graph.txt graph.err -q --granularity=section --emit=lld-call-graph "${link[@]}"
expect_lines graph.txt 1 "the call graph without traces"
expect_grep '^# deporder \(linkopt ' graph.txt "the call graph's provenance"

if command -v ld.gold > /dev/null; then
	gcc -fuse-ld=gold -o prog-gold m.o t.o libarc.a -Wl,--section-ordering-file,section.gold ||
		fail "link with gold"
	expect_output want.out got.out "the gold-ordered program's output" ./prog-gold
fi
if command -v ld.lld > /dev/null; then
	gcc -fuse-ld=lld -o prog-lld m.o t.o libarc.a -Wl,--symbol-ordering-file,section.lld ||
		fail "link with lld"
	expect_output want.out got.out "the lld-ordered program's output" ./prog-lld
fi
exit 0
