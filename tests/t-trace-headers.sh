#!/bin/bash
# The trace readers refuse what cannot be a trace: a file with no newline
# at all (random bytes: before, an empty trace, exit 0) and a pagein
# header with an impossible page size (0, negative, not a power of two:
# before, accepted and reported).  Exit 1 with the reason.
. "$(dirname "$0")/lib.sh"
REPORT=$TOP/pagein/pagein-report
RESOLVE=$TOP/cygtrace/cygtrace-resolve

head -c 4096 /dev/urandom | tr -d '\n' > random.trace
printf '# cygtrace 1 (linkopt 0.1)' > cut-header.trace
for size in 0 -4096 3 12345; do
	printf '# pagein 1 (linkopt 0.1)\n# page-size: %s\n' "$size" > "size$size.trace"
done

# status|program|file|pattern
while IFS='|' read -r want program file pattern; do
	status=0
	"$program" "$file" > out 2> err || status=$?
	((status == want)) || fail "$(basename "$program") $file: status $status, expected $want"
	expect_grep "$pattern" err "$(basename "$program") $file"
done <<EOF2
1|$REPORT|random.trace|^pagein-report: random\.trace: not a pagein trace \(no complete first line\)$
1|$RESOLVE|random.trace|^cygtrace-resolve: random\.trace: not a cygtrace trace \(no complete first line\)$
1|$RESOLVE|cut-header.trace|no complete first line
1|$REPORT|size0.trace|^pagein-report: size0\.trace: line 2: the page size is not a power of two
1|$REPORT|size-4096.trace|line 2: the page size is not a power of two
1|$REPORT|size3.trace|line 2: the page size is not a power of two
1|$REPORT|size12345.trace|line 2: the page size is not a power of two
EOF2
exit 0
