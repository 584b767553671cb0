#!/bin/bash
# linkopt-bolt refuses a profile BOLT finds stale in more than 5% of the
# profiled functions, whether BOLT says it of one function ("1 (50.0% of
# all profiled) function have invalid (possibly stale) profile") or of
# several ("2 (100.0% ...) functions have"): before, neither line was
# read right and both were written.  A profile of hot's real branch (its
# first conditional jump, as objdump shows it) is taken.  With every
# llvm-bolt installed (16, 22).
. "$(dirname "$0")/lib.sh"
need gcc objdump
LB=$TOP/linkopt-bolt/linkopt-bolt
[[ -x $LB ]] || fail "linkopt-bolt is not built"
bolts=()
for v in 16 22; do
	command -v llvm-bolt-$v > /dev/null && bolts+=(llvm-bolt-$v)
done
((${#bolts[@]})) || skip "needs llvm-bolt-16 or llvm-bolt-22 (apt-get install bolt-16)"

cp "$TESTDIR/bolt-prog.c" prog.c
gcc -O2 -g -Wl,--emit-relocs -o prog prog.c || fail "cannot build prog"
# hot's first conditional jump: its offset, its target's and the next instruction's
objdump -d --no-show-raw-insn prog | sed -n '/<hot>:$/,/^$/p' > hot.s
start=$(sed -n '1s/^\([0-9a-f]*\) .*/\1/p' hot.s)
from='' to='' next=''
while read -r address insn operand _; do
	address=${address%:}
	if [[ -n $from ]]; then
		next=$(printf '%x' $((0x$address - 0x$start)))
		break
	fi
	if [[ $insn == j* && $insn != jmp && $operand =~ ^[0-9a-f]+$ ]]; then
		from=$(printf '%x' $((0x$address - 0x$start)))
		to=$(printf '%x' $((0x$operand - 0x$start)))
	fi
done < <(tail -n +2 hot.s)
[[ -n $next ]] || fail "no conditional jump in hot: $(cat hot.s)"
good="1 hot $from 1 hot $to 0 10
1 hot $from 1 hot $next 0 90"
printf '%s\n' "$good" > good.fdata
printf '%s\n1 main 1 1 main 3 0 100\n' "$good" > one-stale.fdata
printf '1 hot 1 1 hot 3 0 10\n1 main 1 1 main 3 0 100\n' > two-stale.fdata

for bolt in "${bolts[@]}"; do
	expect_exit 0 good.$bolt "$LB" -q --bolt $bolt --fdata good.fdata --no-check -o good.$bolt.out ./prog
	[[ -x good.$bolt.out ]] || fail "$bolt: a good profile wrote nothing"
	# fdata|what BOLT says
	while IFS='|' read -r fdata says; do
		expect_exit 1 stale.$bolt "$LB" -q --bolt $bolt --fdata $fdata --no-check -o stale.out ./prog
		expect_grep "BOLT says $says have invalid \(possibly stale\) profile.*the profile is not of this binary \(at most 5% is accepted\)" \
			stale.$bolt.err "$bolt, $fdata"
		[[ ! -e stale.out ]] || fail "$bolt, $fdata: stale.out was written"
	done <<'EOF2'
one-stale.fdata|1 \(50\.0% of all profiled\) function
two-stale.fdata|2 \(100\.0% of all profiled\) functions
EOF2
done
exit 0
