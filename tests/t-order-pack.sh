#!/bin/bash
# Page packing: hot functions of about 1.4 KiB and 0.3 KiB, first touched
# in an order that, laid out as touched, makes big ones cross page
# boundaries.  With --page-size=4096 no hot function smaller than a page
# crosses one while a later hot function could have filled the gap; without
# packing (--page-size=0) some do.  The relinked program still works.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

{
	echo '#include <stdio.h>'
	for i in $(seq 0 11); do
		printf '__attribute__((noinline)) int big%d(int x)\n{\n\tvolatile int a[16];\n\tfor (int k = 0; k < 16; k++)\n\t\ta[k] = x + k;\n' "$i"
		for j in $(seq 1 40); do printf '\tx = x * %d + a[%d];\n' "$((j % 5 + 2))" "$((j % 16))"; done
		printf '\treturn x;\n}\n'
		printf '__attribute__((noinline)) int small%d(int x)\n{\n' "$i"
		for j in $(seq 1 6); do printf '\tx = x * %d + %d;\n' "$((j % 3 + 2))" "$((i + j))"; done
		printf '\treturn x;\n}\n'
	done
	echo 'int main(void)'
	echo '{'
	echo '	int s = 0;'
	for i in $(seq 0 11); do echo "	s += big$i(s);"; done
	for i in $(seq 0 11); do echo "	s += small$i(s);"; done
	echo '	printf("%d\n", s);'
	echo '	return 0;'
	echo '}'
} > pack.c
gcc -O1 -ffunction-sections -c pack.c || fail "cannot compile pack.c"
gcc -o pack-default pack.o -Wl,-Map=default.map || fail "default link"
run_ok want.out ./pack-default
"$PAGEIN" --granularity=function --output="$PWD/trace" -- ./pack-default > /dev/null 2>&1 || fail "pagein"

# straddlers BINARY: hot functions smaller than a page that cross a page
# boundary, and whether a small function placed after them would have fit.
straddlers() {
	nm -S -n "$1" | awk '$3 ~ /^[tT]$/ && $4 ~ /^(big|small)[0-9]+$/ {
		a = 0; s = 0; h = tolower($1); z = tolower($2)
		for (i = 1; i <= length(h); i++) a = a * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		for (i = 1; i <= length(z); i++) s = s * 16 + index("0123456789abcdef", substr(z, i, 1)) - 1
		if (s < 4096 && int(a / 4096) != int((a + s - 1) / 4096)) print $4 }'
}
for ps in 0 4096; do
	"$DEPORDER" -q --granularity=section --page-size=$ps --trace trace --map default.map --emit=gnu-ld \
		--cc -- gcc -o pack pack.o > order$ps.ld 2> err.txt || fail "deporder --page-size=$ps: $(head -3 err.txt)"
	gcc -o pack-$ps pack.o -Wl,-T,order$ps.ld || fail "link with the --page-size=$ps script"
	expect_output want.out got.out "pack-$ps's output" ./pack-$ps
	straddlers pack-$ps > straddle$ps.txt
done
[[ -s straddle0.txt ]] || fail "the fixture does not make functions cross pages even without packing"
# Packed: a function may cross a boundary only when none of the hot
# functions placed after it would have fitted in what was left of the page.
nm -S -n pack-4096 | awk '$3 ~ /^[tT]$/ && $4 ~ /^(big|small)[0-9]+$/ {
	a = 0; s = 0; h = tolower($1); z = tolower($2)
	for (i = 1; i <= length(h); i++) a = a * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	for (i = 1; i <= length(z); i++) s = s * 16 + index("0123456789abcdef", substr(z, i, 1)) - 1
	n++; addr[n] = a; size[n] = s; name[n] = $4 }
	END {
		for (i = 1; i <= n; i++) {
			if (size[i] >= 4096 || int(addr[i] / 4096) == int((addr[i] + size[i] - 1) / 4096))
				continue
			gap = 4096 - addr[i] % 4096
			for (k = i + 1; k <= n; k++)
				if (size[k] <= gap)
					print name[i] " crosses a page boundary, but " name[k] " (" size[k] " bytes) fitted the " gap " bytes left"
		}
	}' > unfilled.txt
expect_empty unfilled.txt "packing"
exit 0
