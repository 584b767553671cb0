# Helpers for the pfstat tests (sourced after lib.sh).

# pfstat_setup: PF is the pfstat under test; ./probe is tests/pfstat-probe.c
# built here (its modes are listed at its top).  TMPDIR is a folder of the
# test's own (pftmp): the loop images pfstat makes there are this test's,
# told apart from those of pfstat runs of tests running beside it.
pfstat_setup() {
	need gcc
	mkdir -p "$TEST_WORKDIR/pftmp" || fail "cannot make $TEST_WORKDIR/pftmp"
	export TMPDIR=$TEST_WORKDIR/pftmp
	PF=$TOP/pfstat/pfstat
	[[ -x $PF ]] || fail "pfstat is not built (run make)"
	gcc -O1 -o probe "$TESTDIR/pfstat-probe.c" || fail "cannot compile pfstat-probe.c"
}

# need_loop: skip unless this test can make pfstat's loop device (root,
# mkfs.ext4, a loop-control device).
need_loop() {
	[[ $(id -u) == 0 ]] || skip "needs root, for pfstat --read-ahead-kb's loop device"
	need mkfs.ext4
	[[ -e /dev/loop-control ]] || skip "needs /dev/loop-control"
}

# loop_of OUT: the loop device pfstat's text report OUT names ("loop3").
loop_of() {
	sed -n 's/^device \(loop[0-9]*\) .*/\1/p' "$1" | head -n 1
}

# expect_loop_gone NAME: fail when loop device NAME is still attached to
# an image a pfstat of this test made (a file with no name in the test's
# folder: "$TEST_WORKDIR/pftmp/#123 (deleted)"); another test's pfstat
# running beside this one may have taken the device since.
expect_loop_gone() {
	local back=/sys/block/$1/loop/backing_file
	[[ -n $1 ]] || fail "no loop device named in pfstat's report"
	if [[ -e $back ]] && grep -q "^$TEST_WORKDIR/" "$back" && grep -Eq '/#[0-9]+ \(deleted\)$' "$back"; then
		fail "$1 is still attached to $(cat "$back")"
	fi
}

# field OUT NAME COLUMN: the number in column COLUMN (1: median) of the row
# NAME ("minor faults") of pfstat's text report OUT.
field() {
	awk -v name="$2" -v col="$3" 'index($0, name) == 1 || index($0, "  " name) == 1 {
		sub("^ *" name, ""); split($0, f, " "); print f[col]; exit }' "$1"
}

# expect_empty_dir DIR WHAT: fail unless DIR is a folder with nothing in it.
expect_empty_dir() {
	[[ -d $1 ]] || fail "$2: no folder $1"
	local left
	left=$(find "$1" -mindepth 1 | head -n 5)
	[[ -z $left ]] || fail "$2: $1 holds $left"
}

# at_exit_undo_loop [PID]: when the test ends, end PID (a pfstat in the
# background) and undo what a pfstat that failed this test left in the
# test's folder (mounts, their loop devices), so that a failure leaves
# nothing behind.
at_exit_undo_loop() {
	if [[ -n ${1:-} ]]; then
		at_exit "kill -KILL $1 2> /dev/null; wait $1 2> /dev/null"
	fi
	at_exit "pfstat_undo_mounts '$PWD'"
}

# process_gone PID: true when PID has ended (gone, or a zombie no one
# reaped yet).
process_gone() {
	local stat
	stat=$(cat "/proc/$1/stat" 2> /dev/null) || return 0
	stat=${stat##*) }
	[[ ${stat:0:1} == [ZX] ]]
}
pfstat_undo_mounts() {
	local point dev
	awk -v d="$1/" 'index($5, d) == 1 { print $3, $5 }' /proc/self/mountinfo | sort -r -k2 |
		while read -r dev point; do
			umount "$point" && [[ $dev == 7:* ]] && losetup -d "/dev/loop${dev#7:}" 2> /dev/null
		done
	return 0
}

# pfstat_asan: true when pfstat is built with AddressSanitizer (make SAN=1):
# its own resident set, which a run's maximum starts from, is then ASan's
# (several MiB, growing with its quarantine).
pfstat_asan() {
	ldd "$PF" 2> /dev/null | grep -q libasan
}
