#!/bin/bash
# The threaded programs of both runtimes under ThreadSanitizer: cygtrace's
# and likely-check's runtimes, built here from their sources with
# -fsanitize=thread, run tests/hostile-host.c's threads scenario (eight
# threads entering functions and hints at once, one of them forking
# meanwhile, so that the parent writes its trace while the others record)
# and its dlopen scenario (two threads loading, calling and unloading a
# plug-in), and likely-check's samples/likely (four threads and a fork
# child).  Any race reported fails.  The dynamic loader locks with
# functions of its own that ThreadSanitizer does not see: what it reports
# from inside ld.so is suppressed, and so is the sample's own race on its
# counter 'sink'.
. "$(dirname "$0")/lib.sh"
need gcc
LC=$TOP/likely-check/likely-check
[[ -x $LC ]] || fail "likely-check is not built (run make)"

printf '#include <pthread.h>\nstatic void *f(void *p) { return p; }\nint main(void) { pthread_t t; pthread_create(&t, 0, f, 0); return pthread_join(t, 0); }\n' > probe.c
gcc -fsanitize=thread -o probe probe.c -lpthread > probe.err 2>&1 ||
	skip "gcc -fsanitize=thread does not link (libtsan2, which Debian's libgcc-12-dev brings): $(head -n 1 probe.err)"
./probe > /dev/null 2> probe.err || skip "ThreadSanitizer does not run here: $(head -n 1 probe.err)"

echo 'called_from_lib:ld-linux-x86-64.so.2' > suppressions
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$PWD/suppressions"
TSAN=(-O1 -g -fsanitize=thread -DLINKOPT_VERSION="\"$(cat "$TOP/VERSION")\"")

# The runtimes as their build.mk builds them, with ThreadSanitizer.
gcc -std=gnu11 "${TSAN[@]}" -fno-instrument-functions -ftls-model=initial-exec -c -o cygtrace-runtime.o \
	"$TOP/cygtrace/runtime.c" || fail "cannot build cygtrace's runtime"
mkdir lib
gcc -std=gnu11 "${TSAN[@]}" -fPIC -shared -o lib/liblikely-check.so "$TOP/likely-check/runtime.c" -lpthread ||
	fail "cannot build likely-check's runtime"
LIKELY_LDFLAGS=(-L"$PWD/lib" -Wl,-rpath,"$PWD/lib" -Wl,--push-state,--no-as-needed -llikely-check -Wl,--pop-state)

gcc "${TSAN[@]}" -finstrument-functions -o host-cygtrace "$TESTDIR/hostile-host.c" cygtrace-runtime.o -lpthread -ldl &&
	gcc "${TSAN[@]}" -finstrument-functions -fPIC -shared -o plug-cygtrace.so "$TESTDIR/hostile-plug.c" ||
	fail "cannot build the host for cygtrace"
# shellcheck disable=SC2046
gcc "${TSAN[@]}" $("$LC" cflags) -o host-likely-check "$TESTDIR/hostile-host.c" "${LIKELY_LDFLAGS[@]}" -lpthread -ldl &&
	gcc "${TSAN[@]}" $("$LC" cflags) -fPIC -shared -o plug-likely-check.so "$TESTDIR/hostile-plug.c" ||
	fail "cannot build the host for likely-check"

# run NAME WANT-STATUS VARIABLE=DIR PROGRAM ARG...: no race, the status
# wanted, every file written complete.
run() {
	local name=$1 want=$2 setting=$3 status=0 f
	shift 3
	mkdir "$name"
	env "$setting$PWD/$name" "$@" > "$name.out" 2> "$name.err" || status=$?
	if grep -q 'WARNING: ThreadSanitizer' "$name.err"; then
		grep -A 14 'WARNING: ThreadSanitizer' "$name.err" | head -n 60 >&2
		fail "$name: ThreadSanitizer reports $(grep -c 'WARNING: ThreadSanitizer' "$name.err") races"
	fi
	((status == want)) || fail "$name: exit status $status, expected $want: $(head -n 5 "$name.err")"
	ls "$name" > "$name.files"
	[[ -s $name.files ]] || fail "$name: no file written"
	expect_no_grep 'tmp' "$name.files" "$name: the files written"
	for f in "$name"/cygtrace.*; do
		[[ -e $f ]] || continue
		[[ $(tail -n 1 "$f") == '# end' ]] || fail "$f: cut short"
	done
	for f in "$name"/likely-check.*; do
		[[ -e $f ]] || continue
		"$LC" report "$f" > /dev/null 2> report.err || fail "$f: likely-check report: $(head -n 3 report.err)"
	done
}

for scenario in threads dlopen; do
	run "cygtrace-$scenario" 3 CYGTRACE_DIR= ./host-cygtrace "$scenario" "$PWD/plug-cygtrace.so" 200
	run "likely-check-$scenario" 3 LIKELY_CHECK_DIR= ./host-likely-check "$scenario" "$PWD/plug-likely-check.so" 200
	expect_same "cygtrace-$scenario.out" "likely-check-$scenario.out" "$scenario: the output of the two hosts"
done
[[ $(ls cygtrace-threads | wc -l) == 2 ]] || fail "threads: a trace for the parent and the fork child expected: $(ls cygtrace-threads)"

S=$TOP/samples/likely
# shellcheck disable=SC2046
gcc "${TSAN[@]}" -fPIC -shared $("$LC" cflags) -o libhints.so "$S/dso.c" &&
	gcc "${TSAN[@]}" $("$LC" cflags) -o sample "$S/main.c" -L. -Wl,-rpath,"$PWD" -lhints "${LIKELY_LDFLAGS[@]}" \
		-lpthread || fail "cannot build samples/likely"
# The sample's own threads add to one volatile int, a race of its own.
echo 'race:^sink$' >> suppressions
run sample-run 0 LIKELY_CHECK_DIR= ./sample
printf 'over 4333\ndso 10\n' > want.out
expect_same want.out sample-run.out "the sample's output"
exit 0
