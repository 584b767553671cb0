#!/bin/bash
# --granularity=section on real static links: the input sections deporder
# keeps are the input sections GNU ld places in the output under
# --gc-sections, as its -Map lists them with a size, for every object and
# archive member of libc.a and libstdc++.a the link uses.
. "$(dirname "$0")/lib.sh"
need_deporder
need gcc g++

# map_sections MAP: "file<TAB>section" for every input section with a size.
map_sections() {
	awk '
	/^Linker script and memory map/ { on = 1; next }
	!on { next }
	/^ [^ *]+$/ { pending = substr($0, 2); next }
	/^ [^ *][^ ]* +0x[0-9a-f]+ +0x[0-9a-f]+ +[^ ]/ {
		if ($3 !~ /^0x0+$/) print $4 "\t" $1
		pending = ""; next
	}
	pending != "" && /^ +0x[0-9a-f]+ +0x[0-9a-f]+ +[^ ]/ {
		if ($2 !~ /^0x0+$/) print $3 "\t" pending
		pending = ""; next
	}
	{ pending = "" }' "$1"
}

# Not comparable through a map: sections ld creates itself (it files them
# under the first input, crt1.o), non-allocated ones, and those whose inputs
# ld merges into one (the map shows the others with size 0).
comparable() {
	grep -Ev $'\t''(\.comment|\.note\.stapsdt|\.gnu\.attributes|\.debug.*|\.eh_frame|\.note\.gnu\.property|\.rodata\.(str|cst).*|\.got|\.got\.plt|\.igot\.plt|\.iplt|\.plt.*|\.rela.*|\.note\.gnu\.build-id|\.dynamic|\.dynbss|\.dynstr|\.dynsym|\.eh_frame_hdr|\.interp|\.gnu\.hash|\.hash|\.gnu\.version.*)$' |
		grep -v '^linker stubs' | sort
}

printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' > hello.c
cat > cxx.cc <<'EOF2'
#include <iostream>
#include <map>
#include <string>
int main() { std::map<std::string, int> m; m["a"] = 1; for (auto &p : m) std::cout << p.first << p.second << std::endl; }
EOF2
gcc -O2 -ffunction-sections -fdata-sections -c hello.c || fail "compile hello.c"
g++ -O2 -ffunction-sections -fdata-sections -c cxx.cc || fail "compile cxx.cc"

check() { # NAME DRIVER ARGS...
	local name=$1; shift
	"$@" -o "$name" -Wl,--gc-sections -Wl,-Map="$name.map" 2> /dev/null || fail "$name: reference link failed"
	map_sections "$name.map" | comparable > "$name.ld"
	[[ $(wc -l < "$name.ld") -gt 500 ]] || fail "$name: the map parser found only $(wc -l < "$name.ld") sections"
	"$DEPORDER" -q --granularity=section --cc -- "$@" -o "$name" -Wl,--gc-sections > "$name.out" 2> "$name.err" ||
		fail "$name: deporder failed: $(head -3 "$name.err")"
	comparable < "$name.out" > "$name.dep"
	expect_same "$name.ld" "$name.dep" "$name: sections kept under --gc-sections"
}

check hello gcc -static hello.o
check cxx g++ -static cxx.o
