#!/bin/bash
# linkopt-cc as configure's CC on SQLite's own autoconf tarball
# (scripts/fetch sqlite): libsqlite3.so and the shell that loads it
# (--disable-static-shell), built by make without -j; linkopt-startup
# orders both, linked by lld (tests/buildsys-matrix: any linker, with or
# without -j), from one run of the shell through libtool's wrapper
# script.  The library touches fewer code pages and the shell
# prints the same.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys
need make ld.lld
linker=$(matrix_linker lld) jobs=$(matrix_jobs 1)
real_project sqlite
cd sqlite
cat > start.sql <<'EOF2'
create table customer(id integer primary key, name text, city text);
with recursive n(i) as (select 1 union all select i + 1 from n where i < 500)
insert into customer(name, city) select 'name' || i, 'city' || (i % 17) from n;
create index customer_city on customer(city);
select city, count(*) from customer group by city order by city limit 5;
select name from customer where city = 'city3' order by id limit 3;
EOF2
./configure --disable-static --disable-static-shell CC="$LINKOPT_CC --dir=$PWD/linkopt gcc" > configure.log 2>&1 ||
	fail "configure: $(tail -5 configure.log)"
make -j"$jobs" > make.log 2>&1 || fail "make -j$jobs: $(tail -5 make.log)"
lib=$(cd .libs && ls libsqlite3.so.*.*.*) || fail "no libsqlite3.so built: $(ls .libs)"
./sqlite3 :memory: < start.sql > plain.out 2>&1 || fail "the plain shell fails: $(cat plain.out)"

startup_ok startup.log --dir=linkopt --target="$lib" --target=sqlite3 --linker="$linker" --trace-children --report \
	-- sh -c './sqlite3 :memory: < start.sql'
./sqlite3 :memory: < start.sql > ordered.out 2>&1 || fail "the ordered shell fails: $(cat ordered.out)"
expect_same plain.out ordered.out "the shell's output, plain and ordered"
expect_fewer startup.log "$lib"
expect_fewer startup.log sqlite3 or-equal
linked_by ".libs/$lib" "$linker"
linked_by .libs/sqlite3 "$linker"
cat startup.log
exit 0
