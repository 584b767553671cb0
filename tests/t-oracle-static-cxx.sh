#!/bin/bash
# A static C++ program using iostream, string and map: libstdc++.a,
# libm.a, libc.a, libgcc.a, libgcc_eh.a (COMDAT, unique symbols, weak
# definitions and rescanned groups at scale).
. "$(dirname "$0")/lib.sh"
need g++
lib=$(g++ -print-file-name=libstdc++.a)
[[ $lib == /* && -f $lib ]] || skip "no static libstdc++.a"

cat > prog.cc <<'EOF'
#include <iostream>
#include <map>
#include <string>
int main(int argc, char **argv)
{
	std::map<std::string, int> count;
	for (int i = 0; i < argc; i++)
		count[std::string(argv[i]).substr(0, 1)] += i;
	count["x"] = 1;
	for (auto &kv : count)
		std::cout << kv.first << '=' << kv.second << std::endl;
	return 0;
}
EOF
g++ -O2 -c prog.cc || fail "cannot compile prog.cc"
oracle_cc cc g++ -static -o prog prog.o
./prog > out || fail "the reference program does not run"
grep -q '^x=1$' out || fail "the reference program printed the wrong thing"
grep -q '/libstdc++\.a(' cc.expected || fail "fixture: no libstdc++.a member in ld's list"
(( $(wc -l < cc.expected) > 200 )) || fail "fixture: expected hundreds of members, got $(wc -l < cc.expected)"
