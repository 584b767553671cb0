#!/bin/bash
# deporder --cc on ordinary links prints nothing on stderr: the options the
# compiler driver adds to every link (-plugin, -plugin-opt=..., --build-id,
# --eh-frame-hdr, -m, --hash-style, -dynamic-linker, -pie, -o, -z relro...)
# and the usual -Wl, options that shape the output without changing what is
# linked (-O1, --gc-sections, -z now, -s, -E, --sort-common) are accepted
# without a word.  Options that change which inputs the link takes or how
# they resolve, and unknown ones, still warn, once each.
. "$(dirname "$0")/lib.sh"
need_deporder

cat > m.c <<'EOF2'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
EOF2
gcc -O2 -fPIC -c m.c || fail "cannot compile m.c"
for link in "gcc -o prog m.o" "gcc -static -o prog m.o" "gcc -no-pie -o prog m.o" "gcc -rdynamic -s -o prog m.o" \
	"gcc -shared -o libm1.so m.o" "gcc -o prog m.o -Wl,-O1,--gc-sections,-z,now,-z,noexecstack,--sort-common" \
	"gcc -o prog m.o -Wl,--build-id=sha1,-rpath,/opt/lib,--enable-new-dtags,--as-needed -lm"; do
	deporder_ok out.txt err.txt --cc -- $link
	expect_empty err.txt "deporder --cc -- $link"
done
deporder_ok out.txt err.txt --cc -- gcc -o prog m.o -Wl,--copy-dt-needed-entries,--frobnicate,--frobnicate
expect_grep "^deporder: warning: ignoring ld option '--copy-dt-needed-entries'" err.txt "a link-changing option"
[[ $(grep -c -- '--frobnicate' err.txt) == 1 ]] || fail "an unknown option: not one warning: $(cat err.txt)"
expect_lines err.txt 2 "warnings"
exit 0
