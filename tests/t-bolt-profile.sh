#!/bin/bash
# The block profile pagein --branches writes, against BOLT's own: BOLT's
# instrumentation (llvm-bolt -instrument) run on the same workload must
# count no branch that linkopt-bolt's profile counts differently (same
# executed blocks, same edge counts where both see them).  Then BOLT,
# given that profile, must put exactly the blocks the workload runs in the
# hot part: pagein on the output sees no executed address in the cold
# fragments BOLT split off (FUNCTION.cold.N), and the block that calls
# cold_path (never run) went cold.  Without an
# llvm-bolt, linkopt-bolt refuses and names the package.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
need llvm-bolt-16 readelf
LB=$TOP/linkopt-bolt/linkopt-bolt
rt=llvm-16/lib/libbolt_rt_instr.a   # Debian's llvm-bolt-16 looks for it under /usr/lib
[[ -f /usr/lib/$rt ]] || skip "needs /usr/lib/$rt (libbolt-16-dev)"

cp "$TESTDIR/bolt-prog.c" prog.c
gcc -O2 -g -Wl,--emit-relocs -o prog prog.c || fail "cannot build prog"
llvm-bolt-16 prog -instrument -o prog.inst --instrumentation-file="$PWD/inst.fdata" \
	--runtime-instrumentation-lib=$rt > inst.log 2>&1 || fail "llvm-bolt -instrument: $(tail -3 inst.log)"
./prog.inst 3000 > inst.out || fail "the instrumented program failed"
[[ -s inst.fdata ]] || fail "the instrumented program wrote no profile"
"$PAGEIN" --branches=yes --output="$PWD/t.trace" -- ./prog 3000 > out 2> err || fail "pagein: $(head -3 err)"
expect_same inst.out out "the program's output under pagein"
"$LB" -q --bolt llvm-bolt-16 --profile t.trace --order=hfsort --no-check --keep kept -o prog.bolt ./prog 2> lb.err ||
	fail "linkopt-bolt: $(cat lb.err)"
# every branch BOLT's instrumentation counted between two named places
# is in pagein's profile with the same count
grep '^1 .* 1 ' inst.fdata | sort > inst.lines
[[ $(wc -l < inst.lines) -ge 8 ]] || fail "BOLT's instrumentation counted only $(wc -l < inst.lines) branches"
sort kept/profile-pagein.fdata > ours.lines
comm -23 inst.lines ours.lines > missing
[[ -s missing ]] && fail "branches BOLT's instrumentation counts that pagein's profile lacks or counts differently: $(head -5 missing)"
grep -q '^1 hot [0-9a-f]* 1 hot [0-9a-f]* 0 1000$' ours.lines ||
	fail "no edge of hot taken 1000 times (x % 3 == 0) in pagein's profile: $(grep ' hot ' ours.lines)"

# the blocks that ran, and only those, are in the hot part (.text.cold
# also holds the functions BOLT has no profile of, _start among them: it
# has no branch of its own)
nm -S prog.bolt | awk '$4 ~ /\.cold\.[0-9]+$/ { print $1, $2, $4 }' > cold.fragments
[[ -s cold.fragments ]] || fail "BOLT split off no cold fragment: $(nm prog.bolt | grep -i cold)"
grep -q ' hot\.cold' cold.fragments || fail "BOLT left the call of cold_path in hot's hot part: $(nm prog.bolt | grep hot)"
"$PAGEIN" --branches=yes --output="$PWD/after.trace" -- ./prog.bolt 3000 > after.out 2> err || fail "pagein: $(head -3 err)"
expect_same out after.out "the rewritten program's output"
base=$(base_of after.trace "$PWD/prog.bolt")
python3 - "$base" cold.fragments after.trace > in-cold <<'EOF2'
import sys
base = int(sys.argv[1], 16)
cold = [(int(a, 16), int(s, 16), n) for a, s, n in (l.split() for l in open(sys.argv[2]))]
for line in open(sys.argv[3]):
    f = line.split()
    if len(f) == 4 and f[0] in ("B", "R"):
        for a in (int(f[1], 16), int(f[2], 16)):
            for lo, size, name in cold:
                if lo <= a - base < lo + size:
                    print(name, line.strip())
EOF2
[[ -s in-cold ]] && fail "code of a cold fragment ran with the profiled workload: $(head -3 in-cold)"

# no llvm-bolt: refused, with what to install
mkdir -p empty
if PATH=$PWD/empty:/usr/bin/../bin-none "$LB" --profile t.trace --no-check -o x ./prog > nb.out 2> nb.err; then
	fail "linkopt-bolt ran without an llvm-bolt on PATH"
fi
expect_grep 'no llvm-bolt on PATH.*apt-get install bolt-16' nb.err "the message without BOLT"
if "$LB" --bolt no-such-bolt --profile t.trace --no-check -o x ./prog > nb.out 2> nb.err; then
	fail "linkopt-bolt ran with --bolt no-such-bolt"
fi
expect_grep 'no-such-bolt' nb.err "the message for a missing --bolt"
[[ ! -e x ]] || fail "an output was written without BOLT"
exit 0
