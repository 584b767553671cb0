#!/bin/bash
# Programs deporder runs (the compiler driver of --cc, the linker it asks
# for its default script) that fail: each failure is reported with how the
# child ended, and a failed driver or linker is never taken for a good one.
# Table-driven: each row is (exit status, stderr pattern, arguments).  Then
# `ld --verbose` runs once for a link whose library search and GNU ld
# script need the same default script.
. "$(dirname "$0")/lib.sh"
need gcc ld
unset LD

cat > main.c <<'EOF'
int main(void) { return 0; }
EOF
cc_objs -- main.c
here=$(pwd)
real_ld=$(command -v ld)

# Compiler drivers: one that fails, one killed by a signal, one whose
# -print-prog-name fails (gcc otherwise), one that names a linker whose
# --verbose output is GNU ld's but whose exit status is not 0.
cat > cc-exit3 <<'EOF'
#!/bin/sh
echo "cc-exit3: error: broken on purpose" >&2
exit 3
EOF
cat > cc-killed <<'EOF'
#!/bin/sh
kill -9 $$
EOF
cat > cc-noprog <<'EOF'
#!/bin/sh
case $1 in -print-prog-name=*) echo "cc-noprog: error: no programs here" >&2; exit 4 ;; esac
exec gcc "$@"
EOF
cat > cc-badld <<EOF
#!/bin/sh
case \$1 in -print-prog-name=ld) echo "$here/\${BADLD:-ld-exit1}"; exit 0 ;; esac
exec gcc "\$@"
EOF
cat > ld-exit1 <<EOF
#!/bin/sh
"$real_ld" "\$@"
echo "ld-exit1: error: failing on purpose" >&2
exit 1
EOF
cat > ld-killed <<EOF
#!/bin/sh
"$real_ld" "\$@"
kill -9 \$\$
EOF
chmod +x cc-exit3 cc-killed cc-noprog cc-badld ld-exit1 ld-killed

rows=(
	"1|^deporder: --cc: '\./cc-exit3 -###' failed: exit status 3 \(cc-exit3: error: broken on purpose\); is it a compiler driver|--cc -- ./cc-exit3 -o x main.o"
	"1|^deporder: --cc: '\./cc-killed -###' failed: killed by signal 9 \(Killed\)|--cc -- ./cc-killed -o x main.o"
	"1|^deporder: --cc: '\./no-such-cc -###' failed: could not start: No such file or directory|--cc -- ./no-such-cc -o x main.o"
	"0|^deporder: warning: --cc: '\./cc-noprog -print-prog-name=ld' failed: exit status 4 \(cc-noprog: error: no programs here\); taking ld as the linker$|-q --emit=gnu-ld --cc -- ./cc-noprog -o x main.o"
	"1|^deporder: '$here/ld-exit1 [^']*--verbose' failed: exit status 1 \(ld-exit1: error: failing on purpose\)$|-q --emit=gnu-ld --cc -- ./cc-badld -o x main.o"
)
n=0
for row in "${rows[@]}"; do
	n=$((n + 1))
	IFS='|' read -r want pattern args <<< "$row"
	read -ra argv <<< "$args"
	run_deporder "out.$n" "err.$n" "${argv[@]}"
	if (( DEP_STATUS != want )); then
		printf 'row %d: deporder %s: exit status %d, expected %d; stderr:\n' "$n" "$args" "$DEP_STATUS" "$want" >&2
		head -n 20 "err.$n" >&2
		exit 1
	fi
	expect_grep "$pattern" "err.$n" "row $n: stderr of deporder $args"
done

# A failed --cc run prints nothing; the run whose -print-prog-name failed
# still gives ld's default script with the order in it; the failed linker
# leaves no script, and emit says so.
expect_empty out.1 "stdout of the failing driver"
expect_grep '^SECTIONS$' out.4 "the script of the run whose driver named no linker"
expect_empty out.5 "stdout of the run whose linker failed"
expect_grep "^deporder: $here/ld-exit1 --verbose: cannot read the linker's default script$" err.5 \
	"row 5: what it means for the script"

# A linker killed by a signal after printing a good script is no better.
export BADLD=ld-killed
run_deporder killed.out killed.err -q --emit=gnu-ld --cc -- ./cc-badld -o x main.o
unset BADLD
expect_status 1 "--emit=gnu-ld with a linker killed by a signal"
expect_grep "^deporder: '$here/ld-killed [^']*--verbose' failed: killed by signal 9 \(Killed\)$" \
	killed.err "the killed linker"

# $LD failing when the library search needs its SEARCH_DIR list: said once,
# and -lc is then not found.
export LD=$here/ld-exit1
run_deporder lc.out lc.err -e main main.o -lc
unset LD
expect_status 1 "\$LD failing, -lc"
expect_grep "^deporder: warning: '$here/ld-exit1 --verbose' failed: exit status 1 \(ld-exit1: error: failing on purpose\): libraries are searched in -L folders only" \
	lc.err "the failing \$LD"
[[ $(grep -c 'ld-exit1 --verbose' lc.err) == 1 ]] || fail "the failing \$LD was reported more than once: $(cat lc.err)"

# One `ld --verbose` for a link whose library search and GNU ld script
# agree on the linker and its options: uses.o's reference to __bss_start
# asks for the symbols the linker defines, emit for its script.
mkdir bin
cat > bin/ld <<EOF
#!/bin/sh
echo "\$*" >> "$here/ld-calls"
exec "$real_ld" "\$@"
EOF
chmod +x bin/ld
cat > uses.c <<'EOF'
extern char __bss_start[];
int main(void) { return __bss_start != 0; }
EOF
cc_objs -- uses.c
: > ld-calls
PATH=$here/bin:$PATH deporder_ok once.out once.err -q --granularity=section --emit=gnu-ld --cc -- gcc -o x uses.o
expect_grep '^SECTIONS$' once.out "the GNU ld script"
expect_no_grep 'undefined reference' once.err "deporder's stderr (the linker defines __bss_start)"
expect_lines ld-calls 1 "the linker's runs"
expect_grep ' --verbose$' ld-calls "the linker's run"
