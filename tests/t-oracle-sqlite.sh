#!/bin/bash
# A program linked with the static libsqlite3.a and the dynamic libc.
. "$(dirname "$0")/lib.sh"
lib=/usr/lib/x86_64-linux-gnu/libsqlite3.a
[[ -f $lib && -f /usr/include/sqlite3.h ]] || skip "needs libsqlite3-dev (libsqlite3.a)"

cat > s.c <<'EOF'
#include <sqlite3.h>
#include <stdio.h>
int main(void)
{
	sqlite3 *db;
	char *err = NULL;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 1;
	if (sqlite3_exec(db, "create table t(x); insert into t values(1);", NULL, NULL, &err) != SQLITE_OK)
		return 1;
	printf("%s\n", sqlite3_libversion());
	return sqlite3_close(db) != SQLITE_OK;
}
EOF
gcc -O2 -c s.c || fail "cannot compile s.c"
libs=()
for l in -lm -ldl -lpthread -lz; do
	libs+=("$l")
done
oracle_cc path gcc -o s s.o "$lib" "${libs[@]}"
./s > /dev/null || fail "the reference program does not run"
grep -q '/libsqlite3\.a(main\.o)$' path.expected || fail "fixture: main.o not in ld's list"
(( $(wc -l < path.expected) > 30 )) || fail "fixture: expected many members, got $(wc -l < path.expected)"
oracle_cc bstatic gcc -o s2 s.o -Wl,-Bstatic -lsqlite3 -Wl,-Bdynamic "${libs[@]}"
