#!/bin/bash
# pagein on a command that replaces itself with another program (a pyenv
# shim: #!/bin/sh, exec ./prog): valgrind does not follow exec without
# --trace-children=yes, so no trace is written.  pagein says so, naming
# the script and the option, leaves no partial .tmp behind, and exits
# non-zero; with --trace-children=yes the program's trace is written.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein

printf 'int main(void) { return 0; }\n' > prog.c
gcc -O1 -o prog prog.c || fail "cannot build prog"
printf '#!/bin/sh\nexec ./prog "$@"\n' > shim && chmod +x shim

status=0
"$PAGEIN" --output="$PWD/shim.trace" -- ./shim > out.txt 2> err.txt || status=$?
((status == 1)) || fail "pagein on the shim: exit status $status, stderr: $(cat err.txt)"
expect_grep "^pagein: $PWD/shim\\.trace: no trace written: \\./shim is a script \\(#!/bin/sh\\).*--trace-children=yes" \
	err.txt "the message"
ls shim.trace* > /dev/null 2>&1 && fail "a trace or a partial .tmp was left: $(ls shim.trace*)"

# The default name (pagein.PID) and a program that is no script.
mkdir run && cd run
printf 'int main(void) { char *a[] = { "../prog", 0 }; execv(a[0], a); return 1; }\n' > ../launcher.c
gcc -O1 -include unistd.h -o ../launcher ../launcher.c || fail "cannot build the launcher"
status=0
"$PAGEIN" -- ../launcher > out.txt 2> err.txt || status=$?
((status == 1)) || fail "pagein on a program that execs: exit status $status"
expect_grep "^pagein: $PWD/pagein\\.[0-9]+: no trace written: \\.\\./launcher replaced itself with another program \\(exec\\).*--trace-children=yes" \
	err.txt "the message"
[[ -z $(ls) || $(ls) == $'err.txt\nout.txt' ]] || fail "files left: $(ls)"
cd ..

mkdir kids
"$PAGEIN" --trace-children=yes --output="$PWD/kids/t.%p" -- ./shim > out.txt 2> err.txt ||
	fail "pagein --trace-children=yes on the shim: $(cat err.txt)"
grep -l "^# object $PWD/prog " kids/t.* > /dev/null || fail "no trace of the program in kids/"
expect_empty err.txt "pagein --trace-children=yes on the shim"
# A fixed name would be written (and renamed over) by every process of the
# tree: refused before anything runs.
status=0
"$PAGEIN" --trace-children=yes --output="$PWD/children.trace" -- ./shim > out.txt 2> err.txt || status=$?
((status == 2)) || fail "--trace-children=yes with a fixed --output: status $status"
expect_grep "needs %p in --output" err.txt "the refusal"
[[ ! -e children.trace ]] || fail "the refused run wrote a trace"
exit 0
