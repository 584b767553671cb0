#!/bin/bash
# One rule for the modes of what pgo-run makes in its store: what the umask
# leaves of 0666 for a file (its logs, locks, config, profile, record of
# options), of 0777 for a folder and a program (the compiler wrapper's
# scripts, the programs --bench keeps).  Under umask 002 its logs and
# locks were 644 beside a config of 664, and its programs 755.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p
printf '#!/bin/sh\n"$PGO_BIN" 1 > /dev/null\n' > bench.sh
chmod +x bench.sh

# modes UMASK FILE EXEC: runs a cycle (with --bench) under the umask and
# writes "MODE PATH" for each file and folder of the store that is not
# what it should be, with EXEC the mode of folders and programs
modes() {
	local mask=$1 list=$2 exec=$3 file=$4
	rm -rf .pgo
	(umask "$mask" && pgo_ok "../out-$mask" "../err-$mask" --bench ./bench.sh --bench-program prog --runs 1 './prog 1')
	find .pgo -printf '%m %y %P\n' | sort -k3 > "$list"
	grep -q ' f logs/\| f [0-9a-f]*/logs/' "$list" || fail "umask $mask: no log in the store: the test does not test"
	awk -v exec="$exec" -v file="$file" '
		$2 == "d" || $3 ~ /^bin\// || $3 ~ /\/bench\/[a-z]+\/prog$/ { if ($1 != exec) print; next }
		$2 == "f" { if ($1 != file) print }
	' "$list" > "$list.wrong"
	expect_empty "$list.wrong" "umask $mask: files and folders of the store with another mode"
}
modes 002 ../modes-002 775 664
modes 022 ../modes-022 755 644
modes 077 ../modes-077 700 600
# what the check covers
for f in lock '[0-9a-f]*/lock' '[0-9a-f]*/config' '[0-9a-f]*/logs/train-1\.log' \
	'[0-9a-f]*/logs/gen-build-compiles\.log' '[0-9a-f]*/plain-options' '[0-9a-f]*/p\.[^/]*/meta' \
	'[0-9a-f]*/p\.[^/]*/work\.gcda' 'bin/cc' '[0-9a-f]*/bench/pgo/prog'; do
	expect_grep " $f\$" ../modes-002 "the store's files"
done
exit 0
