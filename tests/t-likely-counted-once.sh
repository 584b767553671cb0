#!/bin/bash
# likely-check counts each run once: a data file given twice (by another
# name, or a hard link), a source given twice to profile, or counting-mode
# data beside profile-mode data in one report (the same runs, counted by
# both) was summed without a word, every count doubled.  Each is refused
# with the file and why, exit status 1; the report is of the other files,
# and profile writes nothing.  compare takes one file on both sides.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC ]] || fail "likely-check is not built (run make)"

printf 'likely-check 1\nmodule /bin/prog\nsite 3 1 0 1 7\ta.c\tf\tx\n' > count.data
printf 'likely-check 1\nmodule /bin/prog\nsite 5 5 0 1 7\ta.c\tf\tx\n' > count2.data
printf 'likely-check 1\nsource profile\nsite 3 1 0 1 7\ta.c\tf\tx\n' > prof.data
printf 'likely-check 1\nmacro 7\ta.c\tM (a.h:1)\n' > macros.data
printf 'likely-check 1\nsource profile\nmodule /bin/prog\nsite 3 1 0 1 7\ta.c\tf\tx\n' > mixed.data
ln count.data hard.data || fail "cannot make a hard link"

# status|arguments|pattern on stderr (empty: stderr must be empty)|the row of a.c:7, if a report
while IFS='|' read -r want args pattern row; do
	[[ -z $want ]] && continue
	read -ra words <<< "$args"
	expect_exit "$want" out "$LC" "${words[@]}"
	if [[ -n $pattern ]]; then
		expect_grep "$pattern" out.err "stderr of likely-check $args"
	else
		expect_empty out.err "stderr of likely-check $args"
	fi
	[[ -z $row ]] || expect_grep "$row" out "the report of likely-check $args"
done <<'EOF2'
1|report count.data count.data|^likely-check: count.data: given twice \(it is count.data, read already\): its counts would be added twice$|^ +3 +1 +25.00  f a.c:7 
1|report count.data ./count.data|^likely-check: \./count.data: given twice \(it is count.data, read already\)|^ +3 +1 +25.00  f a.c:7 
1|report count.data count2.data hard.data|^likely-check: hard.data: given twice \(it is count.data, read already\)|^ +8 +6 +42.85  f a.c:7 
1|report count.data prof.data|^likely-check: prof.data: profile-mode data beside counting-mode data \(count.data\): the same runs would be counted twice \(compare them instead\)$|^ +3 +1 +25.00  f a.c:7 
1|report prof.data count.data|^likely-check: count.data: counting-mode data beside profile-mode data \(prof.data\)|^ +3 +1 +25.00  f a.c:7 
1|compare count.data hard.data -- prof.data|^likely-check: hard.data: given twice
1|report count2.data mixed.data|^likely-check: mixed.data: holds counting-mode data \(module lines\) and profile-mode data: the same runs would be counted twice$|^ +5 +5 +50.00  f a.c:7 
0|report count.data count2.data macros.data||^ +8 +6 +42.85  f a.c:7 
0|compare count.data -- prof.data||
0|compare count.data count.data||
EOF2

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
printf 'kept\n' > kept.data
expect_exit 1 twice.out "$LC" profile --objdir obj --output kept.data m.c ./m.c
expect_grep '^likely-check: \./m\.c: given twice \(it is m\.c\): its sites would be counted twice$' twice.out.err
[[ $(cat kept.data) == kept ]] || fail "profile of a source given twice replaced --output's file"
expect_exit 1 twice-stdout.out "$LC" profile --objdir obj m.c m.c
expect_empty twice-stdout.out "profile of a source given twice: stdout"
run_ok once.out "$LC" profile --objdir obj m.c
expect_grep $'^site 66 34 0 0 8\tm.c\tmain\t' once.out "profile of m.c once"
exit 0
