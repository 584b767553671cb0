#!/bin/bash
# A program embedding Python, linked with Debian's libpython3.11.a (static,
# -no-pie) and the rest dynamic, with the flags python3.11-config gives.
. "$(dirname "$0")/lib.sh"
config=
for c in /usr/bin/python3.11-config /usr/bin/x86_64-linux-gnu-python3.11-config; do
	[[ -x $c ]] && { config=$c; break; }
done
[[ -n $config ]] || skip "needs Debian's python3.11-config (python3.11-dev)"
read -r -a ldflags <<< "$("$config" --ldflags --embed)"
read -r -a cflags <<< "$("$config" --includes)"
static=
for f in "${ldflags[@]}"; do
	[[ $f == -L* && -f ${f#-L}/libpython3.11.a ]] && { static=${f#-L}/libpython3.11.a; break; }
done
[[ -n $static ]] || skip "no libpython3.11.a in the -L folders of $config"

cat > py.c <<'EOF'
#include <Python.h>
int main(void)
{
	Py_Initialize();
	PyRun_SimpleString("x = 6 * 7");
	return Py_FinalizeEx() < 0;
}
EOF
gcc -O2 "${cflags[@]}" -c py.c || fail "cannot compile py.c"
# -Bstatic so -lpython3.11 takes the archive beside libpython3.11.so
args=()
for f in "${ldflags[@]}"; do
	if [[ $f == -lpython3.11 ]]; then
		args+=(-Wl,-Bstatic -lpython3.11 -Wl,-Bdynamic)
	else
		args+=("$f")
	fi
done
oracle_cc cc gcc -no-pie -o py py.o "${args[@]}" -lz -lexpat -lutil -lpthread
./py || fail "the reference program does not run"
grep -q '/libpython3\.11\.a(pylifecycle\.o)$' cc.expected || fail "fixture: pylifecycle.o not in ld's list"
(( $(wc -l < cc.expected) > 100 )) || fail "fixture: expected hundreds of members, got $(wc -l < cc.expected)"

# the archive by path
oracle_cc path gcc -no-pie -o py2 py.o "$static" -lm -lz -lexpat -lutil -lpthread
