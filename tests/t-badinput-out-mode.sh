#!/bin/bash
# What an output file option leaves at its path (deporder --out,
# likely-check profile --output): a new file gets the mode the umask gives
# (mkstemp's 0600 is no one's choice), a replaced file keeps its mode; a symbolic link is
# replaced by the file, and the file it led to is left as it was (a
# dangling link's target is not created); a FIFO is written in place, not
# replaced by a file; a folder is refused.  pgo-run's store honours the
# umask too.  (tests/t-output-rule.sh applies the hostile cases to every
# tool.)
. "$(dirname "$0")/lib.sh"
need gcc
LC=$TOP/likely-check/likely-check
[[ -x $LC ]] || fail "likely-check is not built (run make)"

cat > m.c <<'EOF'
int main(void) { return 0; }
EOF
cc_obj m.o m.c
printf 'likely-check 1\nsource profile\n' > want.data
: > nohints.c

# mode_of FILE: the permission bits, in octal.
mode_of() {
	stat -c %a -- "$1"
}

# out TOOL PATH: writes PATH with deporder (dep) or likely-check (lc); the
# status is left in OUT_STATUS, stderr in out.err.
out() {
	OUT_STATUS=0
	case $1 in
	dep) timeout 20 "$DEPORDER" -q --out "$2" -e main m.o ;;
	lc) timeout 20 "$LC" profile --output "$2" nohints.c ;;
	esac > /dev/null 2> out.err < /dev/null || OUT_STATUS=$?
}

# out_ok TOOL PATH: out, failing unless the tool exits 0.
out_ok() {
	out "$@"
	((OUT_STATUS == 0)) || fail "$1 --out $2: status $OUT_STATUS: $(head -3 out.err)"
}

umask 002
for tool in dep lc; do
	mkdir "$tool" && cd "$tool" || fail "mkdir $tool"
	cp ../m.o ../nohints.c .

	out_ok $tool new
	[[ $(mode_of new) == 664 ]] || fail "$tool: a new --out file has mode $(mode_of new) under umask 002"

	printf 'old\n' > kept && chmod 640 kept
	out_ok $tool kept
	[[ $(mode_of kept) == 640 ]] || fail "$tool: a replaced 0640 file has mode $(mode_of kept)"
	grep -q old kept && fail "$tool: the 0640 file was not replaced"

	# a symbolic link at the path is replaced, never followed (lib/output.h)
	mkdir real
	printf 'old\n' > real/target && chmod 604 real/target
	ln -s real/target link
	out_ok $tool link
	[[ -f link && ! -L link ]] || fail "$tool: the symbolic link at the --out path is still a link"
	[[ $(cat real/target) == old ]] || fail "$tool: the link's target was written"
	[[ $(mode_of real/target) == 604 ]] || fail "$tool: the link's target has mode $(mode_of real/target)"
	[[ $(mode_of link) == 664 ]] || fail "$tool: the file that replaced the link has mode $(mode_of link)"
	if [[ $tool == lc ]]; then
		expect_same ../want.data link "$tool: the file that replaced the link"
	fi
	ls real/target.tmp* link.tmp* > /dev/null 2>&1 && fail "$tool: a temporary file was left behind"

	ln -s ../made real/dangling
	out_ok $tool real/dangling
	[[ -f real/dangling && ! -L real/dangling ]] || fail "$tool: a dangling link was not replaced by the file"
	[[ ! -e made ]] || fail "$tool: the dangling link's target was created"
	[[ $(mode_of real/dangling) == 664 ]] || fail "$tool: the new file has mode $(mode_of real/dangling)"

	mkfifo fifo
	timeout 20 cat fifo > from-fifo &
	reader=$!
	out_ok $tool fifo
	wait $reader || fail "$tool: nothing read from the FIFO"
	[[ -p fifo ]] || fail "$tool: the FIFO was replaced by a file"
	[[ -s from-fifo ]] || fail "$tool: the FIFO got no output"

	mkdir folder
	out $tool folder
	((OUT_STATUS == 1)) || fail "$tool: --out naming a folder: status $OUT_STATUS"
	expect_grep 'folder: .*Is a directory' out.err "$tool: --out naming a folder"
	[[ -z $(ls folder) ]] || fail "$tool: something was written into the folder"
	ls folder.tmp* > /dev/null 2>&1 && fail "$tool: a temporary file was left beside the folder"
	cd .. || exit 1
done

# pgo-run: the store's folders and files get the umask's modes
. "$TOP/pgo-run/test-fixtures.sh"
sample_project p
umask 022
cd p || exit 1
pgo_ok ../pgo.out ../pgo.err './prog 1'
private=$(find .pgo ! -type l ! -perm -044 | head -5)
[[ -z $private ]] || fail "pgo-run's store has private entries under umask 022: $private"
find .pgo -name meta | grep -q . || fail "no meta file in the store"
exit 0
