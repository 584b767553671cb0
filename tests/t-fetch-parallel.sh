#!/bin/bash
# scripts/fetch run twice at once for one program into an empty cache, as
# the tests of a fresh clone do: the second waits for the first and keeps
# its folder.  Before, both fetched, and the second replaced the folder
# the first one's test was copying (CI: t-mk-startup-lz4, "cp: cannot
# stat .../lz4-0.6.5/doc").  Needs the npm registry.
. "$(dirname "$0")/lib.sh"
need npm flock
export LINKOPT_CACHE=$PWD/cache
"$TOP/scripts/fetch" lz4 > a.out 2> a.err &
a=$!
"$TOP/scripts/fetch" lz4 > b.out 2> b.err &
b=$!
# whichever ends first: the folder it printed, then nothing replaces it
first=
while [[ -z $first ]]; do
	kill -0 $a 2> /dev/null || first=a
	kill -0 $b 2> /dev/null || first=b
	sleep 0.05
done
wait $a || { grep -q 'npm pack failed' a.err && skip "the npm registry: $(cat a.err)"; fail "fetch: $(cat a.err)"; }
dir=$(cat $first.out)
[[ -d $dir && -f $dir/.complete ]] || fail "the first fetch printed '$dir', no complete folder"
inode=$(stat -c %i "$dir")
wait $b || fail "the second fetch: $(cat b.err)"
[[ $(cat a.out) == "$(cat b.out)" ]] || fail "the two fetches printed $(cat a.out) and $(cat b.out)"
[[ $(stat -c %i "$dir") == "$inode" ]] || fail "the folder $dir was replaced after the first fetch had printed it"
[[ -f $dir/Makefile.inc && -f $dir/.complete ]] || fail "the folder is not whole: $(ls -a "$dir")"
compgen -G "$LINKOPT_CACHE/.fetch.*" > /dev/null && fail "fetch left its temporary folders: $(ls -a "$LINKOPT_CACHE")"
exit 0
