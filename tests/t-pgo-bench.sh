#!/bin/bash
# --bench: a plain build is kept aside, the PGO build too, and the command
# runs with PGO_BIN set to each, alternately: the medians and the speedup
# are printed, and the project ends with the optimized build.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
cat > bench.sh <<'SH'
#!/bin/sh
# records which program ran, and runs it; the plain one takes 0.3 s more,
# so that the figures show which is which
readlink -f "$PGO_BIN" >> ../ran
case $(readlink -f "$PGO_BIN") in */plain/*) sleep 0.3 ;; esac
"$PGO_BIN" 1 > /dev/null
SH
chmod +x bench.sh
pgo_ok ../out ../err --bench ./bench.sh --bench-program prog --runs 3 './prog 1'
expect_grep '^\[plain build\] added to every compiler command: -frecord-gcc-switches$' ../out
expect_grep '^\[bench\] plain median [0-9.]+ s, PGO median [0-9.]+ s; speedup \(plain median / PGO median, 3 runs each\) [0-9.]+x$' ../out
line=$(grep '^\[bench\] plain median' ../out)
plain_median=$(echo "$line" | sed 's/.*plain median \([0-9.]*\) s.*/\1/')
pgo_median=$(echo "$line" | sed 's/.*PGO median \([0-9.]*\) s.*/\1/')
ratio=$(echo "$line" | sed 's/.* \([0-9.]*\)x$/\1/')
awk -v p="$plain_median" -v g="$pgo_median" -v r="$ratio" 'BEGIN { exit !(p >= 0.3 && g < p - 0.25 && r > 1.5) }' ||
	fail "the figures do not tell the slow plain program from the PGO one: $line"
# one warm-up and three timed runs of each, in pairs whose first takes turns
sed 's|.*/bench/||' ../ran > ../ran.short
printf '%s\n' plain/prog pgo/prog plain/prog pgo/prog pgo/prog plain/prog plain/prog pgo/prog > ../want
expect_same ../want ../ran.short "programs the benchmark ran"
plain=$(echo "$PWD"/.pgo/*/bench/plain/prog)
pgo=$(echo "$PWD"/.pgo/*/bench/pgo/prog)
cmp -s "$pgo" prog || fail "the PGO copy is not the optimized build"
cmp -s "$plain" prog && fail "the plain copy is the optimized build"
# the plain copy has no profile instrumentation either
nm "$plain" | grep -q __gcov && fail "the plain build is instrumented"

# a failing benchmark command fails the cycle
pgo ../out2 ../err2 --bench 'exit 4' --bench-program prog './prog 1'
pgo_status 1 "a failing benchmark"
expect_grep "benchmark 'exit 4' .* failed: exit status 4" ../err2
