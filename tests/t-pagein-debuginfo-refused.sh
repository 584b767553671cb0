#!/bin/bash
# When valgrind gives up on a file's debug information (it ends the whole
# run), the tool's last line in the partial trace names the file
# ("# unreadable-debuginfo PATH") and the launcher reports that, with the
# fix, never the exec it would otherwise suppose.  valgrind here is a
# stand-in that does what valgrind 3.19 and the tool do then (the real
# tool no longer meets such a file: t-pagein-clang-dwarf5): it writes the
# trace's header and the mark to FILE.tmp.PID and exits 1.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

mkdir bin
cat > bin/valgrind <<'EOF2'
#!/bin/bash
for a; do
	case $a in --out-file=*) out=${a#--out-file=} ;; esac
done
printf '# pagein 2 (linkopt test)\n# command: %s\n' "${!#}" > "$out.tmp.$$"
[[ -n ${MARK:-} ]] && printf '# unreadable-debuginfo %s\n' "$MARK" >> "$out.tmp.$$"
echo '==1== Valgrind: debuginfo reader: Possibly corrupted debuginfo file.' >&2
exit 1
EOF2
chmod +x bin/valgrind
printf 'int main(void) { return 0; }\n' > prog.c
gcc -o prog prog.c || fail "cannot build prog"

status=0
PATH=$PWD/bin:$PATH MARK=$PWD/prog "$PAGEIN" --out-file="$PWD/t.trace" -- ./prog > out.txt 2> err.txt || status=$?
((status == 1)) || fail "pagein exited $status, not 1"
expect_grep "^pagein: $PWD/t\\.trace: no trace written: valgrind cannot read the debug information of $PWD/prog and gave up .*: rebuild it with -gdwarf-4" \
	err.txt "pagein's message"
expect_no_grep 'exec' err.txt "pagein's message"
[[ ! -e t.trace ]] || fail "a trace was left"
ls t.trace.tmp* > /dev/null 2>&1 && fail "the partial trace was left"

# without the mark, the same run reads as an exec, as before
status=0
PATH=$PWD/bin:$PATH "$PAGEIN" --out-file="$PWD/t.trace" -- ./prog > out.txt 2> err2.txt || status=$?
((status == 1)) || fail "pagein without the mark exited $status, not 1"
expect_grep 'replaced itself with another program \(exec\)' err2.txt "pagein's message without the mark"
exit 0
