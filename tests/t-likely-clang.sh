#!/bin/bash
# likely-check on clang builds: counting mode (the header, the runtime
# preloaded or linked) counts samples/likely built by clang, linked by lld
# when there is one, exactly as it counts the gcc build: compare finds the
# same sites with the same counts.  Profile mode reads gcc's own dumps of
# the code its coverage pass instruments, which clang does not write: it
# refuses clang with the cause and the way that works.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/clang-lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
need gcc
need_clang
S=$TOP/samples/likely
fuse=()
command -v ld.lld > /dev/null && fuse=(-fuse-ld=lld)

build() { # CC DIR EXTRA...
	local cc=$1 dir=$2
	shift 2
	mkdir "$dir"
	"$cc" "$@" -O2 -fPIC -shared $("$LC" cflags) -o "$dir/libhints.so" "$S/dso.c" || fail "$cc: cannot build the DSO"
	"$cc" "$@" -O2 -g $("$LC" cflags) -o "$dir/sample" "$S/main.c" -L"$dir" -Wl,-rpath,"$PWD/$dir" -lhints \
		-lpthread || fail "$cc: cannot build the sample"
}
build gcc gcc
build "$CLANG" clang "${fuse[@]}"
printf 'over 4333\ndso 10\n' > want.out
for d in gcc clang; do
	"$LC" run --dir "$d" -- "./$d/sample" > "$d.out" || fail "the $d sample fails under likely-check run"
	expect_same want.out "$d.out" "the $d sample's output"
done
ls clang/likely-check.* > clang.files
expect_lines clang.files 2 "data files of the clang sample (parent and fork child)"

status=0
"$LC" compare gcc/likely-check.* -- clang/likely-check.* > compare.out 2> compare.err || status=$?
((status == 0)) || fail "gcc's and $CLANG's counts differ (status $status): $(head -20 compare.out compare.err)"
"$LC" report clang/likely-check.* > report || fail "report of the clang data"
expect_grep '^11 hint sites: 9 ran, 1 constant, 1 never ran$' report
expect_grep '^ +75000 +25000 +25.00  thread_main ' report

# profile mode: refused for clang, with the way that works
mkdir cov
status=0
"$LC" profile --cc "$CLANG" --cflags "-O2" --objdir cov "$S/main.c" > profile.out 2> profile.err || status=$?
((status == 1)) || fail "profile with $CLANG: status $status, not 1"
expect_grep "^likely-check: profile: $CLANG is clang, .*: count a clang build in counting mode \\(likely-check cflags and ldflags, or likely-check run\\)" \
	profile.err "profile with $CLANG"
expect_empty profile.out "profile's output with $CLANG"
exit 0
