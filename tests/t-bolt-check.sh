#!/bin/bash
# linkopt-bolt --check proves what it claims (a stand-in llvm-bolt that
# copies its input: the check is what is under test, not BOLT):
#   - a command that names neither %b nor %d, which would run the same
#     program twice, is wrong usage (exit status 2);
#   - %b is the same path in both runs: a program that prints its argv[0]
#     passes;
#   - a rewritten binary that crashes where the input runs is refused;
#   - the loader's log must show the runs loading the library under test:
#     a host whose DT_RPATH finds another copy first is refused, naming it;
#   - a check that hangs is ended after --check-timeout, with the input
#     or with the rewritten file, and leaves no process behind;
#   - SIGTERM or SIGINT during the check leaves no work folder, no
#     temporary and no process of the check; the earlier output stays.
. "$(dirname "$0")/lib.sh"
need gcc
LB=$TOP/linkopt-bolt/linkopt-bolt
[[ -x $LB ]] || fail "linkopt-bolt is not built"

cat > fake-bolt <<'EOF2'
#!/bin/sh
[ "$1" = --version ] && { echo "LLVM version 16.0.6"; exit 0; }
in=$1
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
cp "$in" "$out"
EOF2
chmod +x fake-bolt
printf '1 main 0 1 main 4 0 1\n' > main.fdata
lb() { # OUT ARGS...: linkopt-bolt with the stand-in and a profile
	local out=$1
	shift
	run_status "$out" "$LB" -q --bolt "$PWD/fake-bolt" --fdata main.fdata "$@" < /dev/null
}

printf '#include <stdio.h>\nint main(int argc, char **argv) { printf("%%s %%d\\n", argv[0], argc); return 0; }\n' > argv0.c
gcc -O1 -g -Wl,--emit-relocs -Wl,--build-id -o argv0 argv0.c || fail "cannot build argv0"

# neither %b nor %d
lb nobd --check 'true' -o out ./argv0
((RUN_STATUS == 2)) || fail "--check true: $(status_name "$RUN_STATUS"), not 2"
expect_grep "names neither %b nor %d" nobd.err "--check true"
[[ ! -e out ]] || fail "--check true wrote out"

# argv[0]: the same in both runs
lb argv --check './%b one' -o out ./argv0
((RUN_STATUS == 0)) || fail "a program that prints its argv[0]: $(status_name "$RUN_STATUS"): $(head -3 argv.err)"
./out one > /dev/null || fail "out does not run"

# a rewritten binary that crashes (main's first instruction made ud2) is
# refused by its exit status alone (the check prints nothing either way)
main_at=$(nm argv0 | awk '$3 == "main" { print $1 }')
read -r text_at text_offset < <(readelf -SW argv0 | sed 's/\[ */[/' | awk '$2 == ".text" { print $4, $5 }')
[[ -n $main_at && -n $text_at ]] || fail "cannot find main in argv0"
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "LLVM version 16.0.6"; exit 0; }\nin=$1\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\ncp "$in" "$out" && printf "\\017\\013" | dd of="$out" bs=1 seek=%d conv=notrunc 2> /dev/null\n' \
	$((0x$main_at - 0x$text_at + 0x$text_offset)) > crash-bolt
chmod +x crash-bolt
run_status crash "$LB" -q --bolt "$PWD/crash-bolt" --fdata main.fdata \
	--check 'exec 2> /dev/null; ./%b one > /dev/null' -o out3 ./argv0 < /dev/null
((RUN_STATUS == 1)) || fail "a rewritten binary that crashes: $(status_name "$RUN_STATUS"), not 1"
expect_grep "the rewritten binary does not run --check as \./argv0 does \(killed by signal 4 \(Illegal instruction\) against exit status 0\)" \
	crash.err "a rewritten binary that crashes"
[[ ! -e out3 ]] || fail "a rewritten binary that crashes was written"

# a library, through LD_LIBRARY_PATH=%d; a host with DT_RPATH finds the input's copy first
printf 'int lib_work(int n) { return n * 3; }\n' > lib.c
printf '#include <stdio.h>\nint lib_work(int);\nint main(void) { printf("%%d\\n", lib_work(14)); return 0; }\n' > host.c
gcc -O1 -g -fPIC -shared -Wl,--emit-relocs -Wl,--build-id -Wl,-soname,libwork.so.1 -o libwork.so lib.c ||
	fail "cannot build libwork.so"
mkdir installed && ln -s ../libwork.so installed/libwork.so.1
gcc -O1 -o host host.c -L. -l:libwork.so -Wl,--enable-new-dtags -Wl,-rpath,"$PWD/installed" || fail "cannot build host"
gcc -O1 -o host-rpath host.c -L. -l:libwork.so -Wl,--disable-new-dtags -Wl,-rpath,"$PWD/installed" ||
	fail "cannot build host-rpath"
readelf -d host-rpath | grep -q '(RPATH)' || fail "host-rpath has no DT_RPATH"
lb lib --check 'LD_LIBRARY_PATH=%d ./host' -o libwork.out.so ./libwork.so
((RUN_STATUS == 0)) || fail "a host with DT_RUNPATH: $(status_name "$RUN_STATUS"): $(head -3 lib.err)"
lb rpath --check 'LD_LIBRARY_PATH=%d ./host-rpath' -o rpath.so ./libwork.so
((RUN_STATUS == 1)) || fail "a host with DT_RPATH: $(status_name "$RUN_STATUS"), not 1"
expect_grep "the check loaded $PWD/installed/libwork.so.1, not the library under test: .*DT_RPATH" rpath.err \
	"a host with DT_RPATH"
[[ ! -e rpath.so ]] || fail "a host with DT_RPATH: rpath.so was written"

# pids_gone FILE: every process whose pid FILE lists is gone within 5 s
pids_gone() {
	local pid i
	for pid in $(cat "$1"); do
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2> /dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2> /dev/null && { kill -KILL "$pid"; fail "$2: process $pid of the check is left"; }
	done
	return 0
}

# a check that hangs, with the input, and with the rewritten file alone
: > pids
SECONDS=0
lb hang --check-timeout 2 --check './%b; sleep 300 & echo $! >> pids; wait' -o out2 ./argv0
((RUN_STATUS == 1)) || fail "a hung check: $(status_name "$RUN_STATUS"), not 1"
((SECONDS < 60)) || fail "a hung check took ${SECONDS}s with --check-timeout 2"
expect_grep "did not end within 2 s with \./argv0 itself \(--check-timeout\)" hang.err "a hung check"
[[ -s pids ]] || fail "the hung check recorded no process"
pids_gone pids "a hung check"
cp argv0 argv0.copy
: > pids
# the stand-in's copy is the input byte for byte: make the rewritten file
# differ, so that only its run hangs
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "LLVM version 16.0.6"; exit 0; }\nin=$1\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\ncp "$in" "$out"; printf x >> "$out"\n' > fake-bolt
lb hang2 --check-timeout 2 --check './%b; cmp -s %b argv0.copy || { sleep 300 & echo $! >> pids; wait; }' -o out2 ./argv0
((RUN_STATUS == 1)) || fail "a check that hangs with the rewritten file: $(status_name "$RUN_STATUS"), not 1"
expect_grep "the rewritten binary did not end --check within 2 s \(--check-timeout\)" hang2.err \
	"a check that hangs with the rewritten file"
[[ -s pids ]] || fail "the check recorded no process with the rewritten file"
pids_gone pids "a check that hangs with the rewritten file"
[[ ! -e out2 ]] || fail "a hung check wrote out2"

# a signal during the check
for sig in TERM INT; do
	echo earlier > out.$sig
	: > pids
	env --default-signal=$sig "$LB" -q --bolt "$PWD/fake-bolt" --fdata main.fdata \
		--check './%b; sleep 300 & echo $! >> pids; wait' -o out.$sig ./argv0 > sig.out 2> sig.err < /dev/null &
	lb_pid=$!
	for ((i = 0; i < 600; i++)); do
		[[ -s pids ]] && break
		sleep 0.1
	done
	[[ -s pids ]] || fail "SIG$sig: the check never started: $(head -3 sig.err)"
	kill -s $sig $lb_pid
	status=0
	wait $lb_pid || status=$?
	((status == 128 + $(kill -l $sig))) || fail "SIG$sig during the check: $(status_name "$status")"
	pids_gone pids "SIG$sig during the check"
	[[ $(cat out.$sig) == earlier ]] || fail "SIG$sig during the check replaced out.$sig"
	left=$(ls -d out.$sig.tmp* 2> /dev/null)
	[[ -z $left ]] || fail "SIG$sig during the check left: $left"
done
exit 0
