#!/bin/bash
# scripts/need-deps finds every package the build needs as installed when
# it is: run as a user without root, it then says nothing and exits 0.
# Before, valgrind's header always looked missing (it needs the platform's
# defines), so make failed for every user without root.  Without
# --install (a plain make, even as root) it never runs apt-get: a missing
# package is named with "make deps"; with --install as root it runs
# apt-get update and apt-get install.
. "$(dirname "$0")/lib.sh"
need gcc
[[ -e /usr/include/valgrind/pub_tool_basics.h ]] || skip "valgrind's headers are not installed"
mkdir bin
printf '#!/bin/sh\necho 1000\n' > bin/id
printf '#!/bin/sh\necho "apt-get must not run" >&2\nexit 1\n' > bin/apt-get
chmod +x bin/id bin/apt-get
status=0
PATH=$PWD/bin:$PATH "$TOP/scripts/need-deps" gcc libelf.h=libelf-dev gelf.h=libelf-dev \
	valgrind/pub_tool_basics.h=valgrind > out 2> err || status=$?
((status == 0)) || fail "need-deps as a user: status $status: $(cat err)"
expect_empty err "need-deps' messages"
# A header that is really missing is still reported, with the command.
status=0
PATH=$PWD/bin:$PATH "$TOP/scripts/need-deps" gcc no/such-header.h=no-such-package > out 2> err || status=$?
((status == 1)) || fail "a missing header: status $status"
expect_grep 'apt-get install -y no-such-package' err "the install command"
# As root, without --install: no apt-get, "make deps" named
printf '#!/bin/sh\necho 0\n' > bin/id
status=0
PATH=$PWD/bin:$PATH "$TOP/scripts/need-deps" gcc no/such-header.h=no-such-package > out 2> err || status=$?
((status == 1)) || fail "a missing header as root without --install: status $status"
expect_no_grep 'apt-get must not run' err "need-deps without --install"
expect_grep "run 'make deps' as root" err "the advice without --install"
# As root with --install: apt-get update, then install
printf '#!/bin/sh\necho "apt-get $*" >> "%s/apt.log"\n' "$PWD" > bin/apt-get
status=0
PATH=$PWD/bin:$PATH "$TOP/scripts/need-deps" --install gcc no/such-header.h=no-such-package > out 2> err || status=$?
((status == 0)) || fail "need-deps --install as root: status $status: $(cat err)"
printf 'apt-get update\napt-get install -y --no-install-recommends no-such-package\n' > want
expect_same want apt.log "apt-get's calls"
exit 0
