#!/bin/bash
# mk/startup.mk orders a shared library as well as the program, from a
# clean tree built out of it (make -f SRC/Makefile in a build folder,
# sources and an archive found through VPATH), with and without -j, for
# GNU ld, gold and lld: libwork.so is traced in place through its host
# prog (the plain link, then the ordered one), its start-up touches fewer
# code pages ordered than not, and prog prints the same with either.  A
# second make startup changes nothing (the outputs keep their times, so
# the project's make relinks nothing); startup-clean leaves no record.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make readelf ld.gold ld.lld

startup_dso_project src
mkdir plain
make -s -C plain -f ../src/Makefile > plain.out 2>&1 || fail "the plain build: $(tail -5 plain.out)"
(cd plain && ./prog few) > want || fail "the plain prog fails"

build_id() {
	readelf -n "$1" | sed -n 's/^ *Build ID: //p'
}
# state FILE KEY: a value of linkopt-startup's state
state() {
	tr '\0' '\n' < "$1" | sed -n "s/^$2=//p"
}

for linker in gnu-ld gold lld; do
	for jobs in 1 4; do
		b=build-$linker-$jobs
		mkdir "$b"
		make -C "$b" -f ../src/Makefile -j"$jobs" startup STARTUP_LINKER=$linker > "$b.out" 2>&1 ||
			fail "make -j$jobs startup STARTUP_LINKER=$linker: $(tail -5 "$b.out")"
		r=$b/.linkopt
		for f in libwork.so libwork.so.1 prog $r/libwork.so.default $r/libwork.so.map $r/libwork.so.trace \
			$r/libwork.so.$linker.order $r/libwork.so.after.trace $r/libwork.so.state $r/prog.default \
			$r/prog.$linker.order $r/prog.state; do
			[[ -s $f || -s $b/$f ]] || fail "-j$jobs $linker: make startup left no $f"
		done
		tr '\0' '\n' < "$r/prog.link" | grep -qx '\.\./src/libextra\.a' ||
			fail "-j$jobs $linker: prog's recorded link does not read libextra.a through VPATH"
		[[ $(build_id "$b/libwork.so") == $(state "$r/libwork.so.state" ordered-build-id) ]] ||
			fail "-j$jobs $linker: libwork.so is not the ordered link its state names"
		# the library was traced in place: the plain link, then the ordered one
		expect_grep "^# object $PWD/$b/libwork\\.so build-id $(build_id "$r/libwork.so.default") " \
			"$r/libwork.so.trace" "-j$jobs $linker: the plain library in the trace"
		expect_grep "^# object $PWD/$b/libwork\\.so build-id $(build_id "$b/libwork.so") " \
			"$r/libwork.so.after.trace" "-j$jobs $linker: the ordered library in the after-trace"
		if [[ $linker == gnu-ld ]]; then
			nm -D "$b/libwork.so" > /dev/null && nm "$b/libwork.so" | grep -q __linkopt_hot_start ||
				fail "-j$jobs: libwork.so is not linked with GNU ld's script"
		fi

		# the host prints the same with the ordered library
		(cd "$b" && ./prog few) > "$b.got" || fail "-j$jobs $linker: the ordered prog failed"
		expect_same want "$b.got" "-j$jobs $linker: the output of prog with the ordered library"

		for out in libwork.so prog; do
			line=$(grep -E "^$out: ordered for $linker, start-up code pages [0-9]+ -> [0-9]+$" "$b.out") ||
				fail "-j$jobs $linker: no line for $out in: $(cat "$b.out")"
			[[ $line =~ ([0-9]+)\ -\>\ ([0-9]+)$ ]]
			((BASH_REMATCH[2] < BASH_REMATCH[1])) || fail "-j$jobs $linker: $line"
		done

		make -s -C "$b" -f ../src/Makefile startup-check STARTUP_LINKER=$linker > "$b.check" 2>&1 ||
			fail "-j$jobs $linker: make startup-check after make startup: $(tail -5 "$b.check")"
		expect_grep '^libwork\.so: start-up code pages [0-9]+, [0-9]+ when ordered, [0-9]+ before: ok$' "$b.check"
	done
done

# A second make startup relinks nothing that changed: the outputs keep
# their times, so the project's own make relinks nothing either.
b=build-gnu-ld-1
stamp() { stat -c %.9Y "$b/libwork.so" "$b/prog"; }
was=$(stamp)
make -s -C "$b" -f ../src/Makefile startup > again.out 2>&1 || fail "make startup again: $(tail -5 again.out)"
expect_grep '^libwork\.so: ordered for gnu-ld, start-up code pages [0-9]+ -> [0-9]+ \(unchanged\)$' again.out
[[ $(stamp) == "$was" ]] || fail "make startup again touched libwork.so or prog"
make -C "$b" -f ../src/Makefile -q prog || fail "the project's make would relink prog after make startup"
make -s -C "$b" -f ../src/Makefile startup-clean > clean.out 2>&1 || fail "startup-clean: $(cat clean.out)"
[[ -z $(ls -A "$b/.linkopt") ]] || fail "startup-clean left: $(ls -A "$b/.linkopt")"
nm "$b/libwork.so" | grep -q __linkopt_hot_start && fail "startup-clean left the ordered libwork.so"
(cd "$b" && ./prog few) > clean.got || fail "prog after startup-clean"
expect_same want clean.got "prog's output after startup-clean"
exit 0
