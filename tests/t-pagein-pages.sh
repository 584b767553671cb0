#!/bin/bash
# pagein reports exactly the pages a program touches, in the order it
# touches them, with the right kind and symbol: functions and arrays are
# placed on pages of their own, and the program uses them in a known order.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

cat > dso.c <<'EOF2'
__attribute__((aligned(4096), noinline)) int dso_work(int x) { return x * 7; }
__attribute__((aligned(4096), noinline)) int dso_unused(int x) { return x - 7; }
EOF2
cat > pages.c <<'EOF2'
#define OWN_PAGE __attribute__((aligned(4096), noinline, noclone))
__attribute__((aligned(4096))) int data_a[1024] = { 1 };
__attribute__((aligned(4096))) int data_b[1024] = { 2 };
__attribute__((aligned(4096))) int data_unused[1024] = { 3 };
int dso_work(int);
OWN_PAGE int f1(void) { return data_a[10]; }
OWN_PAGE int f2(void) { data_b[20] = 5; return data_b[20]; }
OWN_PAGE int f3(void) { return 3; }
OWN_PAGE int f_unused(void) { return data_unused[1]; }
#include <stdlib.h>
OWN_PAGE int main(void)
{
	volatile char *heap = malloc(64);

	heap[0] = 1;
	return f3() + f1() + f2() + dso_work(1) + heap[0] == 0;
}
EOF2
gcc -O1 -fno-reorder-functions -fPIC -shared -o libdso.so dso.c || fail "cannot build libdso.so"
gcc -O1 -fno-reorder-functions -o pages pages.c -L. -ldso -Wl,-rpath,"$PWD" || fail "cannot build pages"
here=$PWD

status=0
"$PAGEIN" --output="$here/trace" --granularity=function -- ./pages 2> err.txt || status=$?
((status == 0)) || fail "pagein exited $status: $(head -5 err.txt)"
[[ -f trace ]] || fail "no trace file"
[[ ! -e trace.tmp ]] || fail "the temporary trace was left behind"
head -1 trace | grep -q '^# pagein 2' || fail "no header"
expect_grep '^# time: guest instructions' trace "header"

# Code: f3, f1, f2 in that order, each once, each page's first instruction
# being the function's own; f_unused's page never.
for f in f1 f2 f3 f_unused main; do eval "page_$f=$(page_of_symbol pages $f)"; done
relative trace "$here/pages" C > code.txt
grep -E "^($page_f1|$page_f2|$page_f3|$page_f_unused) " code.txt > got.txt
printf '%s f3\n%s f1\n%s f2\n' "$page_f3" "$page_f1" "$page_f2" > want.txt
expect_same want.txt got.txt "code pages of f3, f1, f2 (f_unused never)"
[[ $(awk '{print $1}' code.txt | sort | uniq -d | wc -l) -eq 0 ]] || fail "a code page is reported twice"

# Data: data_a read by f1, then data_b written by f2; data_unused never.
for d in data_a data_b data_unused; do eval "page_$d=$(page_of_symbol pages $d)"; done
relative trace "$here/pages" D > data.txt
grep -E "^($page_data_a|$page_data_b|$page_data_unused) " data.txt > got.txt
printf '%s f1\n%s f2\n' "$page_data_a" "$page_data_b" > want.txt
expect_same want.txt got.txt "data pages of data_a, data_b (data_unused never)"

# The DSO: its object line, and dso_work's page touched, dso_unused's not.
dso=$(awk '$1 == "#" && $2 == "object" && $3 ~ /libdso\.so$/ { print $3; exit }' trace)
[[ -n $dso ]] || fail "no object line for libdso.so"
build_id=$(readelf -n libdso.so | awk '/Build ID/ { print $3 }')
expect_grep "^# object $dso build-id $build_id base 0x" trace "libdso.so's build-id"
relative trace "$dso" C > dsocode.txt
printf '%s dso_work\n' "$(page_of_symbol libdso.so dso_work)" > want.txt
grep -E "^$(page_of_symbol libdso.so dso_work) " dsocode.txt > got.txt
expect_same want.txt got.txt "libdso.so's code page of dso_work"
relative trace "$dso" F > dsofunc.txt
expect_grep ' dso_work$' dsofunc.txt "dso_work's first execution"
expect_no_grep ' dso_unused$' dsofunc.txt "dso_unused never runs"

# Functions: the first execution of each, in order, at its entry.
relative trace "$here/pages" F | grep -E ' (f1|f2|f3|f_unused|main)$' > got.txt
for f in main f3 f1 f2; do
	printf '0x%x %s\n' $(( 0x$(nm pages | awk -v s=$f '$3 == s { print $1 }') )) "$f"
done > want.txt
expect_same want.txt got.txt "function records"

# Data objects (with --granularity=function): data_a then data_b, at their
# starts and by name; data_unused never.
relative trace "$here/pages" O | grep -E ' data_(a|b|unused)$' > got.txt
for d in data_a data_b; do
	printf '0x%x %s\n' $(( 0x$(nm pages | awk -v s=$d '$3 == s { print $1 }') )) "$d"
done > want.txt
expect_same want.txt got.txt "data object records"

# Kinds: the stack is S, malloc's memory H, and every record's kind is one
# of the documented.
grep -v '^#' trace | awk '{ print $3 }' | sort -u > kinds.txt
expect_grep '^S$' kinds.txt "kinds"
expect_grep '^H$' kinds.txt "kinds"
expect_no_grep '^[^CDHSAFO]$' kinds.txt "kinds"

# --code=no --data=no: functions only; --objects: only the matching object.
"$PAGEIN" --output="$here/trace2" --code=no --data=no --granularity=function -- ./pages > /dev/null 2>&1 || fail "pagein --code=no --data=no"
[[ $(grep -v '^#' trace2 | awk '{print $3}' | sort -u) == F ]] || fail "--code=no --data=no still records pages or objects"
"$PAGEIN" --output="$here/trace3" --objects='*libdso.so' -- ./pages > /dev/null 2>&1 || fail "pagein --objects"
grep -v '^#' trace3 | grep -v 'in .*libdso.so)$' > other.txt || true
relative trace3 "$dso" C > dso3.txt
[[ -s dso3.txt ]] || fail "--objects recorded nothing of libdso.so"
awk '$3 == "C"' other.txt | grep -q . && fail "--objects recorded code pages of other objects"

# The report counts what the trace holds.
"$TOP/pagein/pagein-report" trace > report.txt || fail "pagein-report failed"
n=$(relative trace "$here/pages" C | wc -l)
expect_grep "^  $here/pages +$n +[0-9]+$" report.txt "the report's code pages of the program"
"$TOP/pagein/pagein-report" --format=json trace trace3 > report.json || fail "pagein-report --format=json failed"
grep -q '"code_pages": '"$n" report.json || fail "json: no code_pages $n"
"$TOP/pagein/pagein-report" trace trace3 > side.txt || fail "side by side failed"
expect_grep '^  pages +[0-9]+ +0 ' side.txt "side by side: the program's code pages before and after"
exit 0
