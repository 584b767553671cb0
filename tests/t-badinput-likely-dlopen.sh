#!/bin/bash
# A plug-in loaded and unloaded 3,000 times under the counting runtime is
# one block in the data file, with the counts of every load (each unload
# added a block: 200 KB); a copy of it at another path is a block of its
# own; a module still loaded at exit joins the counts of its earlier loads.
# The program's output, status and stderr stay as they were.
. "$(dirname "$0")/lib.sh"
LC=$TOP/likely-check/likely-check
[[ -x $LC && -f $TOP/likely-check/liblikely-check.so ]] || fail "likely-check is not built (run make)"
need gcc

cat > plug.c <<'EOF2'
#define unlikely(x) __builtin_expect(!!(x), 0)
int plug(int n)
{
	int odd = 0;

	for (int i = 0; i < n; i++)
		if (unlikely(i & 1))
			odd++;
	return odd;
}
EOF2
cat > storm.c <<'EOF2'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#define likely(x) __builtin_expect(!!(x), 1)

/* Loads path, calls plug(4) and unloads it unless keep; 0 on failure. */
static int cycle(const char *path, int keep)
{
	void *h = dlopen(path, RTLD_NOW);
	int (*plug)(int), odd;

	if (!h)
		return 0;
	*(void **)&plug = dlsym(h, "plug");
	odd = plug(4);
	if (!keep)
		dlclose(h);
	return odd;
}

int main(int argc, char **argv)
{
	int cycles = atoi(argv[1]), total = 0;

	(void)argc;
	for (int c = 0; c < cycles; c++)
		if (likely(argv[1][0] != 'x'))
			total += cycle("./libplug.so", 0);
	for (int c = 0; c < 10; c++)
		total += cycle("./copy/libplug.so", 0);
	total += cycle("./libplug.so", 1);
	printf("%d\n", total);
	return 7;
}
EOF2
gcc -O2 -fPIC -shared $("$LC" cflags) -o libplug.so plug.c || fail "cannot build the plug-in"
mkdir copy && cp libplug.so copy/ || fail "cannot copy the plug-in"
gcc -O2 $("$LC" cflags) -o storm storm.c -ldl || fail "cannot build the program"

status=0
"$LC" run --dir data -- ./storm 3000 > run.out 2> run.err || status=$?
((status == 7)) || fail "the program's status under the runtime: $status"
echo 6022 > want.out
expect_same want.out run.out "the program's output"
expect_empty run.err "stderr under the runtime"
data=$(echo data/likely-check.*)
[[ -f $data ]] || fail "no data file: $(ls data)"
size=$(stat -c %s "$data")
((size < 1000)) || fail "the data file has $size bytes for 3 modules (a block per unload?)"
grep '^module ' "$data" | sed "s|$PWD/||" | sort > modules
printf 'module copy/libplug.so\nmodule libplug.so\nmodule storm\n' > want.modules
expect_same want.modules modules "the modules of the data file"
grep -A1 "^module $PWD/libplug.so\$" "$data" | grep '^site' > plug.sites
printf 'site 6002 6002 0 0 7\tplug.c\tplug\t!!(i & 1)\n' > want.sites
expect_same want.sites plug.sites "the plug-in's counts over 3,001 loads"
grep -A1 "^module $PWD/copy/libplug.so\$" "$data" | grep '^site' > copy.sites
printf 'site 20 20 0 0 7\tplug.c\tplug\t!!(i & 1)\n' > want.copy
expect_same want.copy copy.sites "the copy's counts over 10 loads"
"$LC" report "$data" > report || fail "report of the data file failed"
expect_grep '^ +6022 +6022 +50.00  plug .*plug.c:7  !!\(i & 1\) \(expect 0\)$' report
expect_grep '^ +3000 +0 +0.00  main .*storm.c:[0-9]+  !!\(argv\[1\]\[0\] != .x.\) \(expect 1\)$' report
exit 0
