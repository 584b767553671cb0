#!/bin/bash
# pgo-run writes nothing through a link in its store: a symbolic link
# where it keeps a lock is refused (its target was truncated and given the
# configuration's key), and so is a lock with another hard link; a link
# where it writes a file (the compiler wrapper's bin/cc, the configuration's
# config) is replaced by the file, its target untouched (bin/cc's target
# was replaced by the wrapper and made 755); a link where it keeps a folder
# (logs/) is refused.  Each time the file outside the store keeps its
# content and mode.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"

sample_project p
cd p

# victim NAME: a file outside the store, mode 600
victim() {
	printf 'precious %s\n' "$1" > "../$1"
	chmod 600 "../$1"
}

# untouched NAME WHAT: the file still holds what victim wrote, mode 600
untouched() {
	printf 'precious %s\n' "$1" > ../want
	expect_same ../want "../$1" "$2: the file the link points at"
	[[ $(stat -c %a "../$1") == 600 ]] || fail "$2: the file the link points at is now mode $(stat -c %a "../$1")"
}

# the project's lock, a symbolic link
mkdir -p .pgo/bin
victim lock-target
ln -s "$(cd .. && pwd)/lock-target" .pgo/lock
pgo ../out1 ../err1 './prog 1'
pgo_status 1 "a link at the store's lock"
expect_grep "^pgo-run: $PWD/\.pgo/lock: a symbolic link where pgo-run keeps its lock: pgo-run writes nothing through a link it did not make; remove it$" ../err1
untouched lock-target "a link at the store's lock"
rm .pgo/lock

# the project's lock, another name of a file outside the store
victim lock-hardlink
ln ../lock-hardlink .pgo/lock
pgo ../out2 ../err2 './prog 1'
pgo_status 1 "a hard link at the store's lock"
expect_grep "^pgo-run: $PWD/\.pgo/lock: not pgo-run's lock \(a file with 2 hard links, or no plain file\): remove it$" ../err2
untouched lock-hardlink "a hard link at the store's lock"
rm .pgo/lock

# the compiler wrapper's script: the link is replaced, the target is not
victim cc-target
rm -f .pgo/bin/cc
ln -s "$(cd .. && pwd)/cc-target" .pgo/bin/cc
pgo_ok ../out3 ../err3 './prog 1'
untouched cc-target "a link at bin/cc"
[[ -f .pgo/bin/cc && ! -L .pgo/bin/cc ]] || fail "bin/cc is not the wrapper's script: $(ls -l .pgo/bin/cc)"
expect_grep '^exec .*/pgo-cc. ./usr/bin/cc. "\$@"$' .pgo/bin/cc "bin/cc"
key=$(sed -n 's/^\[store\] .* (configuration \([0-9a-f]*\))$/\1/p' ../out3)
[[ -n $key ]] || fail "no configuration in the output"

# the configuration's config file
victim config-target
rm .pgo/"$key"/config
ln -s "$(cd .. && pwd)/config-target" .pgo/"$key"/config
pgo_ok ../out4 ../err4 './prog 1'
untouched config-target "a link at the configuration's config"
[[ -f .pgo/$key/config && ! -L .pgo/$key/config ]] || fail "config is still a link"
expect_grep '^build: make$' .pgo/"$key"/config

# the configuration's lock, a symbolic link
victim config-lock-target
rm .pgo/"$key"/lock
ln -s "$(cd .. && pwd)/config-lock-target" .pgo/"$key"/lock
pgo ../out5 ../err5 './prog 1'
pgo_status 1 "a link at the configuration's lock"
expect_grep "^pgo-run: $PWD/\.pgo/$key/lock: a symbolic link where pgo-run keeps its lock" ../err5
untouched config-lock-target "a link at the configuration's lock"
rm .pgo/"$key"/lock

# the log folder, a link to a folder outside the store
mkdir ../elsewhere
rm -rf .pgo/"$key"/logs
ln -s "$(cd .. && pwd)/elsewhere" .pgo/"$key"/logs
pgo ../out6 ../err6 './prog 1'
pgo_status 1 "a link at the log folder"
expect_grep "^pgo-run: $PWD/\.pgo/$key/logs: a symbolic link where pgo-run keeps a folder: pgo-run writes nothing through a link it did not make; remove it$" ../err6
ls -A ../elsewhere > ../elsewhere.list
expect_empty ../elsewhere.list "the folder the log folder's link points at"
rm .pgo/"$key"/logs

# and with the links gone, the store works again
pgo_ok ../out7 ../err7 './prog 1'
expect_grep '^\[merge\] profile installed' ../out7
exit 0
