#!/bin/bash
# Sites of two files of one name (lib/a/util.h and lib/b/util.h, at one
# line, with one expression) are told apart.  compare paired them by the
# file name alone, one of them twice, and said DIFFER (and "right only")
# where both sides agree; report gave both the macro noted for the first
# file (the other file's note was dropped), so its by-macro sums were
# wrong.  A path and a longer spelling of it (absolute against relative)
# still go together; when two files could be the one, none is guessed.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC ]] || fail "likely-check is not built (run make)"

site() { # CORRECT INCORRECT FILE FUNCTION
	printf 'site %s %s 0 1 10\t%s\t%s\tx\n' "$@"
}
{ echo 'likely-check 1'; echo 'module /bin/p'; site 3 1 lib/a/util.h f; site 5 5 lib/b/util.h g; } > left.data
{ echo 'likely-check 1'; echo 'source profile'; site 5 5 lib/b/util.h g; site 3 1 /src/p/lib/a/util.h f; } > right.data

run_ok same.out "$LC" compare left.data right.data
awk 'NR > 2 && /^ / && NF > 6 { print $1, $2, $3, $4, $5, $7 }' same.out > got
printf '3 1 3 1 same lib/a/util.h:10\n5 5 5 5 same lib/b/util.h:10\n' > want
expect_same want got "compare of two headers named util.h"
expect_grep '^2 same, 0 differ, 0 unmatched, 0 on one side only$' same.out

# util.h alone could be either: not paired, both shown on their side
{ echo 'likely-check 1'; echo 'module /bin/p'; site 3 1 util.h f; } > bare.data
run_ok guess.out "$LC" compare bare.data right.data
expect_grep '^0 same, 0 differ, 0 unmatched, 3 on one side only$' guess.out
expect_grep '^ +3 +1 +- +-  left only ' guess.out "the site that could be either"

# report: each site gets the macro of its own file
printf 'likely-check 1\nmacro 10\t/src/p/lib/a/util.h\tCHECK_A (a.h:1)\nmacro 10\tlib/b/util.h\tCHECK_B (b.h:1)\n' > macros.data
run_ok macros.out "$LC" report left.data macros.data
expect_grep '^ +3 +1 +25.00 +1  CHECK_A \(a.h:1\)$' macros.out "the sums of CHECK_A"
expect_grep '^ +5 +5 +50.00 +1  CHECK_B \(b.h:1\)$' macros.out "the sums of CHECK_B"
exit 0
