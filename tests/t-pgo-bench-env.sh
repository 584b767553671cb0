#!/bin/bash
# pgo-run --bench times the two builds under the same conditions and times
# what it says it times.  Both run as the same PGO_BIN (a link, pointed at
# each build's folder in turn), with the same LD_LIBRARY_PATH: their paths
# differed in length (bench/plain/ against bench/pgo/), and the size of
# the environment moves the stack, which can change a program's time by
# itself.  Which build runs first in a pair takes turns (the plain one
# always ran first).  A benchmark command that does not run PGO_BIN is
# refused (it timed the program in the tree twice: a speedup of about 1),
# and so is a --bench-program the build did not write (a program left from
# another build, timed as both).
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
cat > bench.sh <<'SH'
#!/bin/sh
# records the build that runs and what the two see
printf '%s %s %s %s\n' "$(readlink -f "$PGO_BIN" | sed 's|.*/bench/||')" "$PGO_BIN" "$LD_LIBRARY_PATH" \
	"$(env | wc -c)" >> ../seen
"$PGO_BIN" 1 > /dev/null
SH
chmod +x bench.sh
pgo_ok ../out ../err --bench ./bench.sh --bench-program prog --runs 4 './prog 1'
cut -d' ' -f1 ../seen > ../order
printf '%s\n' plain/prog pgo/prog plain/prog pgo/prog pgo/prog plain/prog plain/prog pgo/prog pgo/prog plain/prog \
	> ../want
expect_same ../want ../order "the builds in the order they ran (warm-up, then 4 runs)"
cut -d' ' -f2- ../seen | sort -u > ../environments
expect_lines ../environments 1 "what the two builds see (PGO_BIN, LD_LIBRARY_PATH, environment size)"
expect_grep '^\[bench\] \./bench\.sh, 4 runs of each build after one warm-up run each, in pairs whose first build takes turns \(plain first in the warm-up and in odd runs\), each as PGO_BIN=.*/bench/run/prog, a link to the build.s folder$' ../out
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["first"] == ["plain", "pgo", "plain", "pgo"], d' \
	"$(sed -n "s/^\[bench\] every run's time: //p" ../out)" || fail "the order in bench/times.json"

# a benchmark command that runs another program than PGO_BIN
pgo ../out2 ../err2 --bench './prog 1 > /dev/null' --bench-program prog --runs 2 './prog 1'
pgo_status 1 "a benchmark that does not run PGO_BIN"
expect_grep "^pgo-run: benchmark '\./prog 1 > /dev/null' did not run PGO_BIN \(.*/bench/run/prog, the plain program\): it would time another program; run \"\\\$PGO_BIN\"$" ../err2
expect_no_grep '^\[bench\] plain median' ../out2

# a --bench-program the build does not write: a program left from another build
cp prog old-prog
touch -d '1 hour ago' old-prog
pgo ../out3 ../err3 --bench '"$PGO_BIN" 1' --bench-program old-prog --runs 2 './prog 1'
pgo_status 1 "a --bench-program the build did not write"
expect_grep "^pgo-run: --bench-program old-prog: the plain build did not write $PWD/old-prog \(no compiler command of it linked it, and it is older than the build\): the benchmark would time a program of another build$" ../err3
expect_no_grep '^\[bench\]' ../out3
exit 0
