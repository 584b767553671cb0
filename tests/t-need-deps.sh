#!/bin/bash
# scripts/need-deps finds every package the build needs as installed when
# it is: run as a user without root, it then says nothing and exits 0.
# Before, valgrind's header always looked missing (it needs the platform's
# defines), so make failed for every user without root.
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
exit 0
