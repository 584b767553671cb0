# Sourced by the benchmarks that run the real SQLite shell.  Needs TOP.

# sqlite_build NAME FLAGS [EXTRA...]: builds SQLite 3.44.2's shell with
# FLAGS (and EXTRA objects or libraries after the sources) into the
# git-ignored cache, once per NAME and flags; prints its path.
sqlite_build() {
	local name=$1 flags=$2 src out
	shift 2
	src=$("$TOP/scripts/fetch" sqlite) || return 1
	mkdir -p "$TOP/cache/build"
	out=$TOP/cache/build/sqlite3-$name-$(printf '%s %s' "$flags" "$*" | md5sum | cut -c1-8)
	if [[ ! -x $out ]]; then
		echo "building the SQLite shell: $name ($flags $*)" >&2
		gcc $flags -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -o "$out.tmp" \
			"$src/shell.c" "$src/sqlite3.c" "$@" -lm || return 1
		mv "$out.tmp" "$out"
	fi
	printf '%s\n' "$out"
}

# sqlite_startup_objs: compiles SQLite 3.44.2's sqlite3.o and shell.o
# with the start-up benchmarks' flags (-O2 -g -ffunction-sections
# -fdata-sections) once into the git-ignored cache; prints the folder.
SQLITE_STARTUP_FLAGS="-O2 -g -ffunction-sections -fdata-sections -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION"
sqlite_startup_objs() {
	local src objs
	src=$("$TOP/scripts/fetch" sqlite) || return 1
	objs=$TOP/cache/build/startup-objs-$(printf '%s' "$SQLITE_STARTUP_FLAGS" | md5sum | cut -c1-8)
	if [[ ! -f $objs/sqlite3.o || ! -f $objs/shell.o ]]; then
		mkdir -p "$objs" || return 1
		echo "compiling SQLite ($SQLITE_STARTUP_FLAGS)" >&2
		gcc $SQLITE_STARTUP_FLAGS -c "$src/sqlite3.c" -o "$objs/sqlite3.o.tmp" &
		gcc $SQLITE_STARTUP_FLAGS -c "$src/shell.c" -o "$objs/shell.o.tmp" || return 1
		wait $! || return 1
		mv "$objs/sqlite3.o.tmp" "$objs/sqlite3.o" && mv "$objs/shell.o.tmp" "$objs/shell.o" || return 1
	fi
	printf '%s\n' "$objs"
}

# sqlite_workload SCALE: the benchmark SQL, SCALE thousand customers and ten
# times as many orders: inserts, indexes, joins, aggregates, updates, string
# and date functions, a transaction.
sqlite_workload() {
	local c=$(( $1 * 1000 )) o=$(( $1 * 10000 ))
	cat <<SQL
CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT, city TEXT, since TEXT);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INTEGER REFERENCES customer(id), amount REAL, note TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $c)
INSERT INTO customer SELECT i, 'customer ' || i, CASE i % 7 WHEN 0 THEN 'Oslo' WHEN 1 THEN 'Lyon' WHEN 2 THEN 'Porto' ELSE 'Graz' END,
  date('2020-01-01', '+' || (i % 1000) || ' days') FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $o)
INSERT INTO orders SELECT i, 1 + (i * 7919) % $c, (i * 37) % 1000 / 10.0, printf('order %05d', i) FROM n;
CREATE INDEX orders_customer ON orders(customer);
CREATE INDEX customer_city ON customer(city);
SELECT city, count(*), round(sum(amount), 2) FROM customer JOIN orders ON orders.customer = customer.id GROUP BY city ORDER BY 3 DESC;
SELECT name, max(amount) FROM customer JOIN orders ON orders.customer = customer.id WHERE city = 'Lyon' GROUP BY name ORDER BY 2 DESC LIMIT 5;
BEGIN;
UPDATE orders SET amount = amount * 1.1 WHERE customer % 3 = 0;
DELETE FROM orders WHERE amount < 1;
COMMIT;
SELECT count(*), avg(amount), group_concat(DISTINCT substr(note, 1, 7)) FROM orders;
SELECT strftime('%Y', since) AS y, count(*) FROM customer GROUP BY y;
SELECT upper(name), length(name), instr(name, '9') FROM customer WHERE id IN (SELECT customer FROM orders ORDER BY amount DESC LIMIT 3);
SQL
}

# median VALUES...: the median of whitespace-separated numbers.
median() { printf '%s\n' $* | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# ratio A B: A / B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# wall_ms COMMAND...: runs it (stdin as given), prints the wall time in ms.
wall_ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" > /dev/null 2>&1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 ))
}

# sqlite_startup_setup: in the current folder, whose ./sqlite3 is a shell
# of SQLite 3.44.2, db.sqlite (sqlite_workload 1's tables and rows) and
# data.csv (2000 rows); sets sqlite_startup_workloads to the five start-up
# workloads of bench/best and bench/segments, shell lines run there: a
# one-shot query that parses a real number, .import of the CSV, JSON
# functions, .schema of the database, a window function.
sqlite_startup_setup() {
	sqlite_workload 1 | grep -v '^SELECT\|^BEGIN\|^UPDATE\|^DELETE\|^COMMIT' | ./sqlite3 db.sqlite || return 1
	{ echo id,name,city,amount; seq 1 2000 | awk '{ printf "%d,customer %d,%s,%.2f\n", $1, $1, ($1 % 3 ? "Lyon" : "Graz"), $1 / 7 }'; } > data.csv
	sqlite_startup_workloads=(
		"./sqlite3 db.sqlite 'SELECT round(amount * 1.25e0, 2) FROM orders WHERE id = 4242'"
		"./sqlite3 :memory: '.import --csv data.csv t' 'SELECT count(*), sum(amount) FROM t'"
		"./sqlite3 :memory: \"SELECT json_extract('{\\\"a\\\":[1,2,{\\\"b\\\":3.5}]}', '\$.a[2].b'), json_group_array(value) FROM json_each('[1,2,3]')\""
		"./sqlite3 db.sqlite .schema"
		"./sqlite3 db.sqlite 'SELECT customer, sum(amount) OVER (PARTITION BY customer ORDER BY id) FROM orders LIMIT 5'"
	)
}
