#!/bin/bash
# Counts likely-check cannot trust are refused, not summed: a negative
# count in a data file (it read as 2^64 - 5 and showed 125% wrong), one
# past 2^64 - 1, counts whose sum passes 2^64 (it wrapped: a site became
# "never ran" and the --fail-over gate passed with exit 0), each with
# file:line and exit 1, and a refused file adds nothing; a .gcda cut short
# (gcov reads it as zero counts without a word), a counter no run gives,
# counters whose flow does not add up and a missing .gcda (its sites read
# as never run) make profile fail for that source, and --output is left alone
# (and nothing goes to stdout).
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC ]] || fail "likely-check is not built (run make)"

site() { # CORRECT INCORRECT [CONSTANT]: a data file's line for a.c:3
	printf 'site %s %s %s 1 3\ta.c\tf\tx\n' "$1" "$2" "${3:-0}"
}
{ echo 'likely-check 1'; site 3 1; } > good.data
{ echo 'likely-check 1'; site 1 -5; } > negative.data
{ echo 'likely-check 1'; site 99999999999999999999 0; } > huge.data
{ echo 'likely-check 1'; site 0 18446744073709551615; } > max.data
{ echo 'likely-check 1'; site 0 1; } > one.data
{ echo 'likely-check 1'; site 0 18446744073709551615; site 0 1; } > wraps.data
{ echo 'likely-check 1'; site 2 2 18446744073709551615; site 0 0 1; } > constant.data
{ echo 'likely-check 1'; site 100 0; site 1 -1; } > half.data
{ echo 'likely-check 1'; site 1 1000000000000000000; } > big.data

# status|arguments|pattern on stderr (empty: stderr must be empty)
while IFS='|' read -r want args pattern; do
	[[ -z $want ]] && continue
	status=0
	eval "\"\$LC\" $args" > out 2> err < /dev/null || status=$?
	(( status == want )) || { cat out err >&2; fail "likely-check $args: exit status $status, expected $want"; }
	if [[ -n $pattern ]]; then
		expect_grep "$pattern" err "stderr of likely-check $args"
	else
		expect_empty err "stderr of likely-check $args"
	fi
done <<'EOF2'
1|report negative.data|^likely-check: negative.data:2: negative count '-5'$
1|report huge.data|^likely-check: huge.data:2: count '99999999999999999999' above 2\^64 - 1$
1|report wraps.data|^likely-check: wraps.data:3: counts overflow 64 bits when summed \(no run counts that often: the data is corrupt\)$
1|report constant.data|^likely-check: constant.data:3: counts overflow 64 bits
1|report --fail-over=50 max.data one.data|^likely-check: one.data: counts overflow 64 bits when summed with the earlier files'
1|report --fail-over=50 one.data max.data|^likely-check: max.data: counts overflow 64 bits when summed with the earlier files'
1|compare negative.data good.data|^likely-check: negative.data:2: negative count '-5'$
0|report big.data|
EOF2

# max.data + one.data wrapped to 0 of 0: "never ran", and the gate passed
status=0
"$LC" report --fail-over=50 max.data one.data > gate.out 2> gate.err || status=$?
((status == 1)) || fail "the --fail-over gate over counts that wrap: status $status"
expect_no_grep '^never ran:' gate.out "the report of counts that wrap"
# a refused file adds nothing, not even its lines before the bad one
status=0
"$LC" report good.data half.data > half.out 2> half.err || status=$?
((status == 1)) || fail "report with a refused file: status $status"
expect_grep '^ +3 +1 +25.00  f a.c:3  x \(expect 1\)$' half.out "the counts without the refused file"
# counts past 2^64 / 100: the percentage is still the right one
"$LC" report big.data > big.out || fail "report of big counts failed"
expect_grep '^ +1 1000000000000000000 +99.99  f a.c:3  x \(expect 1\)$' big.out "the report of big counts"

need gcc
cat > m.c <<'EOF2'
#define unlikely(x) __builtin_expect(!!(x), 0)
int main(int argc, char **argv)
{
	int n = 0;

	(void)argv;
	for (int i = 0; i < 100; i++)
		if (unlikely(i % 3 == 0))
			n++;
	return argc > 5 ? n : 0;
}
EOF2
mkdir obj
gcc -O0 --coverage -c m.c -o obj/m.o && gcc --coverage -o m obj/m.o || fail "cannot build the coverage program"
./m || fail "the coverage program failed"
"$LC" profile --objdir obj --output whole.data m.c 2> whole.err || fail "profile of a whole .gcda: $(cat whole.err)"
expect_grep $'^site 66 34 0 0 8\tm.c\tmain\t' whole.data "profile of a whole .gcda"
size=$(stat -c %s obj/m.gcda)
cp obj/m.gcda whole.gcda
for cut in 0 20 $((size / 2)) $((size - 4)); do
	head -c $cut whole.gcda > obj/m.gcda
	printf 'kept\n' > cut.data
	status=0
	"$LC" profile --objdir obj --output cut.data m.c > /dev/null 2> cut.err || status=$?
	((status == 1)) || fail "profile of a .gcda cut to $cut of $size bytes: status $status"
	expect_grep '^likely-check: obj/m.gcda: (truncated|file format not recognized).*; its counts cannot be used for m.c$' \
		cut.err "profile of a .gcda cut to $cut bytes"
	[[ $(cat cut.data) == kept ]] || fail "profile of a .gcda cut to $cut bytes replaced --output's file"
done
cp whole.gcda obj/m.gcda

# counters no run gives: one past 2^63 (gcov's counts are signed: a
# negative count), and a branch taken more often than its block ran (the
# flow does not add up); each refused, --output kept.  The .gcda of m.c holds
# the header (16 bytes), the object summary (16), main's record (20), then
# its counters' record: 8 bytes of tag and length, then a count per 8
# bytes; the second one (byte 68) is the branch on i % 3 == 0.
corrupt() { # NAME OFFSET BYTES: a copy of the whole .gcda with BYTES at OFFSET
	cp whole.gcda obj/m.gcda
	printf "$3" | dd of=obj/m.gcda bs=1 seek="$2" conv=notrunc 2> /dev/null || fail "cannot patch the .gcda"
	printf 'kept\n' > "$1.data"
}
corrupt negative 60 '\xff\xff\xff\xff\xff\xff\xff\xff'
expect_exit 1 negative.out "$LC" profile --objdir obj --output negative.data m.c
expect_grep '^likely-check: obj/m.gcda: main: a negative count \(no run gives one: the data is corrupt\); its counts cannot be used for m.c$' negative.out.err
[[ $(cat negative.data) == kept ]] || fail "profile of a negative count replaced --output's file"
corrupt flow 68 '\xc8'
expect_exit 1 flow.out "$LC" profile --objdir obj --output flow.data m.c
expect_grep '^likely-check: obj/m.gcda: main: its counts do not add up \(the arc from block [0-9]+ to [0-9]+ comes out negative\); its counts cannot be used for m.c$' flow.out.err
[[ $(cat flow.data) == kept ]] || fail "profile of counts that do not add up replaced --output's file"
expect_empty flow.out "profile of counts that do not add up: stdout"

# no .gcda at all (the build never ran, GCOV_PREFIX sent it elsewhere):
# its sites read as never run, exit 0; now refused
rm obj/m.gcda
printf 'kept\n' > missing.data
expect_exit 1 missing.out "$LC" profile --objdir obj --output missing.data m.c
expect_grep '^likely-check: obj/m.gcda: no counts for m.c \(No such file or directory\): the coverage build did not run it, or wrote its counts elsewhere \(GCOV_PREFIX, another --objdir\)$' missing.out.err
[[ $(cat missing.data) == kept ]] || fail "profile without a .gcda replaced --output's file"
cp whole.gcda obj/m.gcda
exit 0
