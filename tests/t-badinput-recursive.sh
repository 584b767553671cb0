#!/bin/bash
# Recursive input: a linker script with INPUT(itself), two scripts that
# include each other, a response file @r holding @r, 100,000 nested
# AS_NEEDED(: each is an error naming the file and the cycle or depth,
# exit status 1 or 2, never a crash (before: SIGSEGV on every one).
. "$(dirname "$0")/lib.sh"
need_deporder
need gcc python3 timeout

printf 'int main(void) { return 0; }\n' > m.c
gcc -c m.c || fail "cannot compile m.c"
printf 'INPUT(self.ld)\n' > self.ld
printf 'INPUT(b.ld)\n' > a.ld
printf 'INPUT(a.ld)\n' > b.ld
printf '@r\n' > r
python3 -c "print('INPUT(' + 'AS_NEEDED(' * 100000 + 'm.o' + ')' * 100001)" > deep.ld

# status|arguments|pattern
while IFS='|' read -r want args pattern; do
	status=0
	timeout 60 "$DEPORDER" -e main $args > out 2> err || status=$?
	((status == want)) || fail "deporder $args: status $status, expected $want: $(head -c 300 err)"
	expect_grep "$pattern" err "deporder $args"
done <<'EOF2'
1|m.o self.ld|^deporder: self\.ld: linker scripts nested too deeply: does a script include itself\?$
1|m.o a.ld|^deporder: [ab]\.ld: linker scripts nested too deeply
2|m.o @r|^deporder: @r: response files nested too deeply: does one include itself\?$
1|deep.ld|^deporder: deep\.ld: linker script: AS_NEEDED nested too deeply$
EOF2
exit 0
