# Helpers for the tests of clang builds (sourced after lib.sh).

# need_clang: set CLANG to clang-22 or the newest clang (14 or later: its
# default is DWARF 5) on PATH; skip the test without one.
need_clang() {
	local c
	CLANG=
	for c in clang-22 clang-21 clang-20 clang-19 clang-18 clang-17 clang-16 clang-15 clang-14 clang; do
		if command -v "$c" > /dev/null 2>&1; then
			CLANG=$c
			break
		fi
	done
	[[ -n $CLANG ]] || skip "needs clang (clang-22, or any clang 14 or later)"
}
