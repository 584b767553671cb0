# Sourced by the benchmarks that build real projects from a fresh copy of
# their sources (bench/buildsys).  Needs TOP and work.

# project NAME: a fresh copy of NAME's sources (scripts/fetch) in
# $work/NAME.XXXX, printed; exits when they cannot be fetched (run in
# $(...), where set -e does not reach: the caller's assignment fails)
project() {
	local src dir
	src=$("$TOP/scripts/fetch" "$1") || exit 1
	[[ -d $src ]] || exit 1
	dir=$(mktemp -d "$work/$1.XXXX")
	cp -a "$src/." "$dir/"
	echo "$dir"
}
