# Helpers for the tests of other linkers' maps (sourced after lib.sh and
# pagein-lib.sh): gold, lld and mold each link real programs with -Map,
# and deporder's closure, trace matching, order and identity checks are
# compared with what that linker itself did.

# linkmap_fixture: main.o and libparts.a (start-up calls a -> b, which
# reads table from d; c is never referenced; e runs only with "all"),
# each function and object in a section of its own, and hello.o.
linkmap_fixture() {
	cat > main.c <<'EOF'
#include <stdio.h>
#include <string.h>
int part_a(int);
int part_e(int);
int main(int argc, char **argv)
{
	int s = part_a(argc);
	if (argc > 1 && !strcmp(argv[1], "all"))
		s += part_e(argc);
	printf("%d\n", s);
	return 0;
}
EOF
	cat > a.c <<'EOF'
int part_b(int);
__attribute__((noinline)) int part_a(int x) { return part_b(x) + 1; }
__attribute__((noinline)) int part_a_unused(int x) { return x * 5; }
EOF
	cat > b.c <<'EOF'
extern const int part_table[];
__attribute__((noinline)) int part_b(int x) { return part_table[x & 3] + x; }
EOF
	cat > c.c <<'EOF'
int part_c(int x) { return x - 3; }
EOF
	cat > d.c <<'EOF'
const int part_table[4] = { 10, 20, 30, 40 };
EOF
	cat > e.c <<'EOF'
__attribute__((noinline)) int part_e(int x) { return x * 9; }
EOF
	cat > hello.c <<'EOF'
#include <stdio.h>
int main(void) { printf("hello, %s\n", "world"); return 0; }
EOF
	local f
	for f in main a b c d e hello; do
		gcc -O2 -ffunction-sections -fdata-sections -c "$f.c" || fail "cannot compile $f.c"
	done
	ar rcs libparts.a a.o b.o c.o d.o e.o || fail "ar"
}

# linkmap_members NAME MAP [ordered]: the members MAP lists against those
# of `deporder --format=members` (NAME.dep, written before), both
# normalized: in order with "ordered" (gold lists them as GNU ld does, in
# the order it took them), as sets otherwise (lld's and mold's maps list
# them where their sections went).
linkmap_members() {
	local name=$1 map=$2
	"$TESTDIR/ldmap-members" "$map" | "$TESTDIR/normalize-members" > "$name.expected"
	normalize "$name.dep" > "$name.actual"
	if [[ ${3:-} != ordered ]]; then
		sort -o "$name.expected" "$name.expected"
		sort -o "$name.actual" "$name.actual"
	fi
	expect_nonempty "$name.expected" "$name: the members $map lists"
	expect_same "$name.expected" "$name.actual" "$name: deporder's members against the linker's map"
}

# linkmap_check LABEL EMIT ORDER_FLAG MEMBERS_ORDER CC [CCFLAGS…]: link with
# CC CCFLAGS… (which choose the linker) and -Map, then
#  - the closure: the map's members are deporder's, for the fixture and
#    for a static hello world (libc.a) when there is one;
#  - the trace: pagein's records of the linked program all match the map;
#  - the order: deporder --emit=EMIT, relinked with ORDER_FLAG FILE, puts
#    the start-up functions together in first-touch order, as the
#    relinked program's own symbols show (ORDER_FLAG "-": the linker
#    cannot take an order, not checked);
#  - identity: the map against another link's binary is refused.
linkmap_check() {
	local label=$1 emit=$2 order_flag=$3 members_order=$4
	shift 4
	local link=("$@") status
	"${link[@]}" -o "$label" main.o libparts.a -Wl,-Map="$label.map" > "$label.link.err" 2>&1 ||
		fail "$label: the link failed: $(head -3 "$label.link.err")"
	[[ $(./"$label") == 22 ]] || fail "$label: the program printed '$(./"$label")'"

	deporder_ok "$label.dep" "$label.dep.err" -q --format=members --cc -- "${link[@]}" -o "$label" main.o libparts.a
	linkmap_members "$label" "$label.map" "$members_order"
	grep -q 'libparts\.a(c\.o)' "$label.expected" && fail "$label: the fixture's unused c.o was linked"
	expect_grep 'libparts\.a\(d\.o\)$' "$label.expected" "$label: the members (d.o, data only)"

	if [[ -f $(gcc -print-file-name=libc.a) && $(gcc -print-file-name=libc.a) == /* ]]; then
		"${link[@]}" -static -o "$label-hello" hello.o -Wl,-Map="$label-hello.map" > "$label-hello.err" 2>&1 ||
			fail "$label: the static link failed: $(head -3 "$label-hello.err")"
		deporder_ok "$label-hello.dep" "$label-hello.dep.err" -q --format=members --cc -- \
			"${link[@]}" -static -o "$label-hello" hello.o
		linkmap_members "$label-hello" "$label-hello.map" "$members_order"
		(($(wc -l < "$label-hello.expected") > 20)) ||
			fail "$label: a static hello world took $(wc -l < "$label-hello.expected") members of libc.a"
	fi

	"$PAGEIN" --granularity=function --out-file="$PWD/$label.trace" -- ./"$label" > /dev/null 2> "$label.pagein.err" ||
		fail "$label: pagein: $(head -3 "$label.pagein.err")"
	status=0
	"$DEPORDER" -q --granularity=section --page-size=0 --trace "$label.trace" --map "$label.map" --emit="$emit" \
		--cc -- "${link[@]}" -o "$label" main.o libparts.a > "$label.order" 2> "$label.order.err" || status=$?
	((status == 0)) || fail "$label: deporder --trace with the map: status $status: $(head -3 "$label.order.err")"
	expect_grep "^deporder: $label\\.trace: [0-9]+ records of .*/$label: [0-9]+ matched an input section of the link \\(100\\.0%\\), .*, 0 outside every input section\$" \
		"$label.order.err" "$label: the match report"

	relative "$label.trace" "$PWD/$label" F | awk '$2 ~ /^(main|part_[a-e])$/ { print $2 }' > "$label.touched"
	printf '%s\n' main part_a part_b > "$label.want"
	expect_same "$label.want" "$label.touched" "$label: the functions the program runs at start-up"
	if [[ $order_flag != - ]]; then
		# the linker's own result: the relinked program's functions
		"${link[@]}" -o "$label-ordered" main.o libparts.a -Wl,"$order_flag","$label.order" \
			> "$label.relink.err" 2>&1 || fail "$label: the relink with the order: $(head -3 "$label.relink.err")"
		[[ $(./"$label-ordered") == 22 ]] ||
			fail "$label: the relinked program printed '$(./"$label-ordered")'"
		# the program's functions in address order: the start-up ones
		# one after another, in first-touch order
		nm -n "$label-ordered" | awk '$3 ~ /^(main|part_[a-e]|part_a_unused)$/ { print $3 }' > "$label.all"
		grep -n -x -F -f "$label.touched" "$label.all" > "$label.placed"
		cut -d: -f2 "$label.placed" > "$label.placed.names"
		expect_same "$label.touched" "$label.placed.names" "$label: the start-up functions of the relinked program"
		awk -F: 'NR > 1 && $1 != last + 1 { bad = 1 } { last = $1 } END { exit bad }' "$label.placed" ||
			fail "$label: the start-up functions of the relinked program are not together: $(tr '\n' ' ' < "$label.all")"
	fi

	# identity: the map does not describe a link with c.o before main.o
	"${link[@]}" -o "$label-other" c.o main.o libparts.a > "$label.other.err" 2>&1 ||
		fail "$label: the other link: $(head -3 "$label.other.err")"
	status=0
	"$DEPORDER" -q --granularity=section --trace "$label.trace" --map "$label.map" --binary "$label-other" \
		--cc -- "${link[@]}" -o "$label" main.o libparts.a > /dev/null 2> "$label.identity.err" || status=$?
	((status == 1)) || fail "$label: the map against another link's binary: status $status, not 1"
	expect_grep "$label\\.map: does not describe $label-other: [0-9]+ of [0-9]+ symbols are elsewhere" \
		"$label.identity.err" "$label: the map against another link's binary"
}

# linkmap_dso LABEL CC [CCFLAGS…]: a shared library linked with -Map by the
# linker CCFLAGS choose, traced through a program that loads it: the
# library is the traced object with the link's build-id, and every record
# matches the library's map.
linkmap_dso() {
	local label=$1
	shift
	local link=("$@")
	cat > dso1.c <<'EOF2'
int dso_more(int);
__attribute__((noinline)) int dso_work(int x) { return dso_more(x) * 2; }
__attribute__((noinline)) int dso_unused(int x) { return x - 7; }
EOF2
	cat > dso2.c <<'EOF2'
__attribute__((noinline)) int dso_more(int x) { return x + 5; }
EOF2
	printf 'int dso_work(int);\nint main(int argc, char **argv) { (void)argv; return dso_work(argc) != 12; }\n' > dsomain.c
	gcc -O2 -fPIC -ffunction-sections -c dso1.c dso2.c || fail "$label: cannot compile the library"
	"${link[@]}" -shared -o "lib$label.so" dso1.o dso2.o -Wl,-Map="lib$label.map" > "lib$label.err" 2>&1 ||
		fail "$label: the library link: $(head -3 "lib$label.err")"
	gcc -o "$label-client" dsomain.c -L. -l"$label" -Wl,-rpath,"$PWD" || fail "$label: the client link"
	./"$label-client" || fail "$label: the client fails"
	"$PAGEIN" --granularity=function --out-file="$PWD/lib$label.trace" -- ./"$label-client" > /dev/null 2>&1 ||
		fail "$label: pagein on the client"
	local status=0
	"$DEPORDER" -q --granularity=section --page-size=0 --trace "lib$label.trace" --map "lib$label.map" \
		--cc -- "${link[@]}" -shared -o "lib$label.so" dso1.o dso2.o > "lib$label.order" 2> "lib$label.order.err" ||
		status=$?
	((status == 0)) || fail "$label: deporder on the library's map: status $status: $(head -3 "lib$label.order.err")"
	expect_grep "^deporder: lib$label\\.trace: [0-9]+ records of .*/lib$label\\.so: [0-9]+ matched an input section of the link \\(100\\.0%\\), .*, 0 outside every input section\$" \
		"lib$label.order.err" "$label: the library's match report"
	expect_grep $'^dso1\\.o\t\\.text\\.dso_work$' "lib$label.order" "$label: the library's order"
	expect_grep $'^dso2\\.o\t\\.text\\.dso_more$' "lib$label.order" "$label: the library's order"
}
