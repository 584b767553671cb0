#!/bin/bash
# mk/startup.mk orders a shared library as well as the program, from a
# clean tree built out of it (make -f SRC/Makefile in a build folder,
# sources and an archive found through VPATH), with and without -j, for
# GNU ld, gold and lld: libwork.so is traced through its host prog (the
# default link, then the ordered one, each found by LD_LIBRARY_PATH), its
# start-up touches fewer code pages ordered than not, and prog prints the
# same with either.  Before, STARTUP_DSOS did not exist: a library could
# not be ordered at all.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/startup-lib.sh"
need_pagein make readelf ld.gold ld.lld

startup_dso_project src

# code_pages REPORT NAME: "BEFORE AFTER" code pages of NAME in a
# two-trace pagein-report
code_pages() {
	awk -v n="$2" '$1 == n { print $2, $3 }' "$1"
}

build_id() {
	readelf -n "$1" | sed -n 's/^ *Build ID: //p'
}

for linker in gnu-ld gold lld; do
	for jobs in 1 4; do
		b=build-$linker-$jobs
		mkdir "$b"
		make -C "$b" -f ../src/Makefile -j"$jobs" startup STARTUP_LINKER=$linker > "$b.out" 2>&1 ||
			fail "make -j$jobs startup STARTUP_LINKER=$linker: $(tail -5 "$b.out")"
		for f in libwork.so libwork.so.default libwork.so.map libwork.so.trace libwork.so.$linker.order \
			libwork.so.after.trace libwork.so.record prog prog.default prog.$linker.order prog.record; do
			[[ -s $b/$f ]] || fail "-j$jobs $linker: make startup left no $f"
		done
		expect_grep '^inputs obj/main\.o obj/prog\.o \.\./src/libextra\.a libwork\.so$' "$b/prog.record" \
			"-j$jobs $linker: prog's inputs, libextra.a through VPATH"
		[[ $(build_id "$b/libwork.so") == $(sed -n 's/^ordered-build-id //p' "$b/libwork.so.record") ]] ||
			fail "-j$jobs $linker: libwork.so is not the ordered link the record names"
		# the library was traced as its default link, then as the ordered one
		expect_grep "^# object $PWD/$b/libwork\\.so\\.libdir/default/libwork\\.so\\.1 build-id $(build_id "$b/libwork.so.default") " \
			"$b/libwork.so.trace" "-j$jobs $linker: the default library in the trace"
		expect_grep "^# object $PWD/$b/libwork\\.so\\.libdir/ordered/libwork\\.so\\.1 build-id $(build_id "$b/libwork.so") " \
			"$b/libwork.so.after.trace" "-j$jobs $linker: the ordered library in the after-trace"
		if [[ $linker == gnu-ld ]]; then
			nm -D "$b/libwork.so" > /dev/null && nm "$b/libwork.so" | grep -q __linkopt_hot_start ||
				fail "-j$jobs: libwork.so is not linked with GNU ld's script"
		fi

		# the host prints the same with the default and the ordered library
		(cd "$b" && LD_LIBRARY_PATH=$PWD/libwork.so.libdir/default ./prog.default few) > "$b.want" || fail "the default prog"
		(cd "$b" && ./prog few) > "$b.got" || fail "-j$jobs $linker: the ordered prog failed"
		expect_same "$b.want" "$b.got" "-j$jobs $linker: the output of prog with the ordered library"

		"$TOP/pagein/pagein-report" "$b/libwork.so.trace" "$b/libwork.so.after.trace" > "$b.dso.report" ||
			fail "pagein-report on the library's traces"
		read -r before after <<< "$(code_pages "$b.dso.report" libwork.so.1)"
		[[ -n $before && -n $after ]] || fail "no line for libwork.so.1 in: $(cat "$b.dso.report")"
		((after < before)) || fail "-j$jobs $linker: libwork.so's start-up code pages $before -> $after"
		"$TOP/pagein/pagein-report" "$b/prog.trace" "$b/prog.after.trace" > "$b.prog.report" ||
			fail "pagein-report on the program's traces"
		read -r before after <<< "$(code_pages "$b.prog.report" prog.default)"
		[[ -n $before && -n $after ]] || fail "no line for prog in: $(cat "$b.prog.report")"
		((after < before)) || fail "-j$jobs $linker: prog's start-up code pages $before -> $after"

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
make -s -C "$b" -f ../src/Makefile startup-clean || fail "startup-clean"
left=$(cd "$b" && ls -d libwork.so.* prog.* 2> /dev/null | grep -vx 'libwork\.so\.1')
[[ -z $left ]] || fail "startup-clean left: $left"
exit 0
