#!/bin/bash
# The toolkit's one rule for output files (lib/output.h; OUTPUT FILES in
# linkopt(1)), the same hostile cases applied to every tool that writes a
# file: deporder --out, likely-check profile -o, linkopt report -o,
# linkopt cut -o, pagein --output, linkopt-bolt -o.  For each tool:
#   - a symbolic link at the output is replaced, and what it led to is
#     left as it was;
#   - a link planted at OUTPUT.tmp (and at every name pagein could
#     foresee) is neither written through nor removed;
#   - an output that is the input under another spelling (./prog for
#     prog, a hard link, a symbolic link to it) is refused, exit status 1,
#     the input untouched and nothing left behind;
#   - a new output gets the umask's mode under umask 002 and 077, a
#     replaced regular file keeps its own;
#   - SIGTERM, SIGINT or SIGHUP while the output is being written (the
#     tool held in fsync by a preloaded shim; pagein: while its program
#     runs) leaves no temporary file, and an earlier output as it was.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
need_pagein
LC=$TOP/likely-check/likely-check
LINKOPT=$TOP/linkopt-report/linkopt
LB=$TOP/linkopt-bolt/linkopt-bolt
for p in "$LC" "$LINKOPT" "$LB"; do
	[[ -x $p ]] || fail "$p is not built (run make)"
done

# The inputs: a program (linked for BOLT), an object, a source without
# hints, a trace of the program, a BOLT profile of it.
cp "$TESTDIR/bolt-prog.c" prog.c
gcc -O2 -g -Wl,--emit-relocs -Wl,--build-id -o prog prog.c || fail "cannot build prog"
./prog 10 > prog.expected || fail "prog does not run"
# linkopt cut's input: linked with linkopt-prefetch.o, whose record it writes
gcc -O2 -o cutprog prog.c "$TOP/prefetch/linkopt-prefetch.o" || fail "cannot build cutprog"
printf 'int main(void) { return 0; }\n' > m.c
cc_obj m.o m.c
: > nohints.c
"$PAGEIN" --output="$PWD/prog.trace" -- ./prog 10 > /dev/null 2> pagein.err || fail "pagein: $(head -3 pagein.err)"
printf '1 main 0 1 hot 0 0 10\n1 hot 5 1 hot 9 0 3\n' > prog.fdata
printf '#include <unistd.h>\nint main(void) { sleep(60); return 0; }\n' > sleeper.c
gcc -O1 -o sleeper sleeper.c || fail "cannot build sleeper"
# llvm-bolt's stand-in: the rule is about what linkopt-bolt does with the
# file, not about what BOLT makes of it
cat > fake-bolt <<'EOF2'
#!/bin/sh
[ "$1" = --version ] && { echo "LLVM version 16.0.6"; exit 0; }
in=$1
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
cp "$in" "$out"
EOF2
chmod +x fake-bolt
# the shim that holds a tool in fsync, between writing its temporary file
# and renaming it, until a signal comes
cat > hold.c <<'EOF2'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
int fsync(int fd)
{
	const char *mark = getenv("HOLD_MARK");
	int m;

	(void)fd;
	if (mark && (m = open(mark, O_WRONLY | O_CREAT, 0644)) >= 0)
		close(m);
	for (;;)
		pause();
}
EOF2
gcc -O1 -fPIC -shared -o hold.so hold.c || fail "cannot build the shim"
HOLD=$PWD/hold.so
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

tools=(deporder likely-check report cut pagein linkopt-bolt)

# the input each tool reads, as it is named on its command line
declare -A input=([deporder]=m.o [likely-check]=nohints.c [report]=prog.trace [cut]=cutprog [pagein]=prog
	[linkopt-bolt]=prog)

# command TOOL OUT: the command that makes TOOL write OUT (in COMMAND)
command_for() {
	case $1 in
	deporder) COMMAND=("$DEPORDER" -q --out "$2" -e main m.o) ;;
	likely-check) COMMAND=("$LC" profile --output "$2" nohints.c) ;;
	report) COMMAND=("$LINKOPT" report prog.trace -o "$2") ;;
	cut) COMMAND=("$LINKOPT" cut --clear -o "$2" cutprog) ;;
	pagein) COMMAND=("$PAGEIN" --output="$2" -- ./prog 10) ;;
	linkopt-bolt) COMMAND=("$LB" -q --bolt "$PWD/fake-bolt" --fdata prog.fdata --no-check -o "$2" ./prog) ;;
	esac
}

# write TOOL OUT: runs it; status in RUN_STATUS, output in run.out and run.out.err
write() {
	command_for "$@"
	run_status run.out "${COMMAND[@]}" < /dev/null
}

# write_ok TOOL OUT WHAT
write_ok() {
	write "$1" "$2"
	((RUN_STATUS == 0)) || fail "$1: $3: $(status_name "$RUN_STATUS"): $(head -3 run.out.err)"
}

# valid TOOL FILE WHAT: FILE is a regular file holding what TOOL writes
valid() {
	[[ -f $2 && ! -L $2 ]] || fail "$1: $3: $2 is not a regular file"
	case $1 in
	deporder) grep -qx m.o "$2" ;;
	likely-check) grep -qx 'source profile' "$2" ;;
	report) grep -q '<html' "$2" ;;
	cut) [[ $(/lib64/ld-linux-x86-64.so.2 "./$2" 10) == "$(cat prog.expected)" ]] ;;
	pagein) [[ $(tail -n 1 "$2") == '# end' ]] ;;
	linkopt-bolt)   # (a replaced 0640 file keeps its mode: run through the loader)
		[[ $(/lib64/ld-linux-x86-64.so.2 "./$2" 10) == "$(cat prog.expected)" ]] ;;
	esac || fail "$1: $3: $2 does not hold what $1 writes: $(head -c 200 "$2" | tr -d '\0')"
}

# no_temporary TOOL OUT WHAT: nothing named OUT.tmp* is left but LEAVE
no_temporary() {
	local left
	left=$(ls -d "$2".tmp* 2> /dev/null | grep -vxF -f <(printf '%s\n' "${LEAVE[@]}"))
	[[ -z $left ]] || fail "$1: $3: left behind: $left"
}
LEAVE=(none)

mode_of() {
	stat -c %a -- "$1"
}

# new_mode TOOL UMASK: the mode a new output of TOOL gets
new_mode() {
	local base=666
	[[ $1 == linkopt-bolt || $1 == cut ]] && base=777
	printf '%o\n' $((8#$base & ~8#$2))
}

# wait_for PID FILE-PATTERN: waits (up to 120 s) for a file matching it
# while process PID runs
wait_for() {
	local i
	for ((i = 0; i < 1200; i++)); do
		compgen -G "$2" > /dev/null && return 0
		kill -0 "$1" 2> /dev/null || return 1
		sleep 0.1
	done
	return 1
}

# interrupt TOOL OUT SIGNAL: starts TOOL writing OUT, waits until it is
# writing, sends SIGNAL; RUN_STATUS gets its status
interrupt() {
	local tool=$1 out=$2 sig=$3 pid
	rm -f held
	if [[ $tool == pagein ]]; then
		COMMAND=("$PAGEIN" --output="$out" -- ./sleeper)
		env --default-signal="$sig" "${COMMAND[@]}" > run.out 2> run.out.err < /dev/null &
		pid=$!
		wait_for $pid "$out.tmp*" || fail "$tool: no $out.tmp* appeared: $(head -3 run.out.err)"
	else
		command_for "$tool" "$out"
		HOLD_MARK=$PWD/held LD_PRELOAD=$HOLD env --default-signal="$sig" "${COMMAND[@]}" \
			> run.out 2> run.out.err < /dev/null &
		pid=$!
		wait_for $pid held || { kill -KILL $pid 2> /dev/null; fail "$tool: never reached fsync: $(head -3 run.out.err)"; }
		compgen -G "$out.tmp*" > /dev/null || fail "$tool: held in fsync with no $out.tmp*"
	fi
	kill -s "$sig" $pid
	RUN_STATUS=0
	wait $pid || RUN_STATUS=$?
}

for tool in "${tools[@]}"; do
	mkdir "$tool" && cd "$tool" || fail "mkdir $tool"
	cp -p ../prog ../prog.expected ../m.o ../nohints.c ../prog.trace ../prog.fdata ../sleeper ../fake-bolt ../cutprog .
	in=${input[$tool]}
	cp -p "$in" pristine
	echo "somebody else's" > victim
	chmod 600 victim

	# a symbolic link at the output: replaced, its target untouched
	ln -s victim out1
	write_ok $tool out1 "a link at the output"
	valid $tool out1 "a link at the output"
	[[ $(cat victim) == "somebody else's" && $(mode_of victim) == 600 ]] ||
		fail "$tool: the file a link at the output led to was written: $(head -c 40 victim)"
	no_temporary $tool out1 "a link at the output"

	# links planted at the names a temporary could have
	planted=(out2.tmp)
	next=$(($(sh -c 'echo $$') + 1))
	for ((pid = next; pid < next + 40; pid++)); do
		planted+=(out2.tmp.$pid)
	done
	for link in "${planted[@]}"; do
		ln -s victim "$link"
	done
	write_ok $tool out2 "links at the temporary names"
	valid $tool out2 "links at the temporary names"
	[[ $(cat victim) == "somebody else's" ]] || fail "$tool: written through a link at a temporary name"
	for link in "${planted[@]}"; do
		[[ -L $link && $(readlink "$link") == victim ]] || fail "$tool: the link planted at $link was replaced or removed"
	done
	LEAVE=("${planted[@]}")
	no_temporary $tool out2 "links at the temporary names"
	LEAVE=(none)
	rm -f "${planted[@]}"

	# the input under another name
	ln "$in" "$in.hard"
	ln -s "$in" "$in.sym"
	for spelling in "./$in" "$in.hard" "$in.sym" "$PWD/$in"; do
		[[ $tool == pagein && $spelling == "./$in" ]] && spelling=$in   # pagein runs ./prog
		write $tool "$spelling"
		((RUN_STATUS == 1)) || fail "$tool: the output $spelling, the input $in: $(status_name "$RUN_STATUS")"
		expect_grep "is the input .*\(the same file\)" run.out.err "$tool: the output $spelling, the input $in"
		cmp -s "$in" pristine || fail "$tool: the input $in changed when $spelling was the output"
		no_temporary $tool "$spelling" "the output $spelling"
		[[ $spelling == "$in.sym" && ! -L $spelling ]] && fail "$tool: the link $spelling was replaced"
	done

	# modes: the umask's for a new file, its own for a replaced one
	for mask in 002 077; do
		umask $mask
		write_ok $tool "new$mask" "umask $mask"
		umask 022
		valid $tool "new$mask" "umask $mask"
		[[ $(mode_of "new$mask") == $(new_mode $tool $mask) ]] ||
			fail "$tool: a new output under umask $mask has mode $(mode_of "new$mask"), not $(new_mode $tool $mask)"
	done
	echo old > kept && chmod 640 kept
	write_ok $tool kept "a replaced 0640 file"
	valid $tool kept "a replaced 0640 file"
	[[ $(mode_of kept) == 640 ]] || fail "$tool: a replaced 0640 file has mode $(mode_of kept)"

	# a signal while the output is written
	for sig in TERM INT HUP; do
		echo earlier > "out$sig"
		interrupt $tool "out$sig" $sig
		number=$(kill -l $sig)
		((RUN_STATUS == 128 + number)) ||
			fail "$tool: SIG$sig while writing: $(status_name "$RUN_STATUS"), not killed by it: $(head -3 run.out.err)"
		no_temporary $tool "out$sig" "SIG$sig while writing"
		[[ $tool == pagein || $(cat "out$sig") == earlier ]] || fail "$tool: SIG$sig replaced the earlier output"
	done
	cd .. || exit 1
done
exit 0
