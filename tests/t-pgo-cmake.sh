#!/bin/bash
# The CMake recipe of pgo-run(1) and the README, run as written on a real
# CMake project: expat (scripts/fetch expat), its library and xmlwf, with
# xmlwf checking a few MB of XML as the workload.  The clean command
# configures a build folder of its own with pgo-run's compiler wrapper, so
# the builds get the profile flags on top of CMake's Release flags (-O3),
# as the objects record; then pgo-run build --bench on that existing cache,
# where the plain and the PGO xmlwf each load their own libexpat.
. "$(dirname "$0")/lib.sh"
. "$TOP/pgo-run/test-fixtures.sh"
need cmake readelf ldd
src=$("$TOP/scripts/fetch" expat 2> fetch.err) || skip "needs expat's sources: $(tail -n 1 fetch.err)"
cp -r "$src" expat
cd expat

# a few MB of XML: elements, attributes, entities, comments, CDATA
awk 'BEGIN {
	print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	print "<catalog>"
	for (i = 0; i < 20000; i++) {
		printf "  <book id=\"b%d\" lang=\"%s\">\n", i, i % 3 ? "en" : "fr"
		printf "    <title>Title &amp; subtitle %d</title>\n", i
		printf "    <!-- entry %d -->\n", i
		printf "    <price currency=\"EUR\">%d.%02d</price>\n", i % 97, i % 100
		printf "    <note><![CDATA[a <raw> note %d]]></note>\n", i
		print "  </book>"
	}
	print "</catalog>"
}' > data.xml

# the recipe, as pgo-run(1) gives it
recipe=$(sed -n '/^pgo-run --clean .cmake -S/,/xmlwf/p' "$TOP/pgo-run/pgo-run.1" | sed 's/\\e$/\\/')
[[ -n $recipe ]] || fail "pgo-run(1) has no CMake recipe"
grep -qF "$(echo "$recipe" | head -n 1)" "$TOP/README.md" || fail "the README's CMake recipe is not pgo-run(1)'s"
recipe=${recipe//pgo-run/\"\$PGO_RUN\"}
export PGO_RUN
PGO_STATUS=0
timeout -k 5 600 bash -c "$recipe" > ../out 2> ../err < /dev/null || PGO_STATUS=$?
if (( PGO_STATUS != 0 )); then
	cat ../out ../err >&2
	fail "the CMake recipe of pgo-run(1) exited $PGO_STATUS"
fi
expect_grep '^\[merge\] [0-9]+ objects instrumented, [0-9]+ with profile data' ../out
expect_grep '^\[options\] optimized build: the [0-9]+ outputs it shares with the plain build have its options' ../out
expect_grep '^\[optimized build\] 0 coverage-mismatch warnings' ../out
obj=$(find build-pgo -name 'xmlparse.c.o' | head -n 1)
[[ -n $obj ]] || fail "no xmlparse.c.o in build-pgo"
readelf -p .GCC.command.line "$obj" | grep -qE -- ' -O3 .*-fprofile-use=' ||
	fail "$obj was not built at -O3 with the profile: $(readelf -p .GCC.command.line "$obj")"
./build-pgo/xmlwf/xmlwf data.xml > ../xmlwf.out 2>&1 || fail "the optimized xmlwf fails on data.xml"
expect_empty ../xmlwf.out "xmlwf's complaints about data.xml"

# pgo-run build on the existing build folder, with --bench: xmlwf loads
# libexpat.so.1, which the build makes
build=$(echo "$recipe" | sed -n "s/.*--build '\([^']*\)'.*/\1/p")
clean=$(echo "$recipe" | sed -n "s/.*--clean '\([^']*\)'.*/\1/p")
cat > bench.sh <<'SH'
#!/bin/sh
ldd "$PGO_BIN" | sed -n 's/.*libexpat.so.1 => \([^ ]*\) .*/\1/p' | xargs readlink -f >> ../loaded
"$PGO_BIN" data.xml
SH
chmod +x bench.sh
pgo_ok ../out-bench ../err-bench build --clean "$clean" --build "$build" --bench ./bench.sh \
	--bench-program build-pgo/xmlwf/xmlwf --runs 1
store=$(ls -d "$PWD"/.pgo/* | grep -E '/[0-9a-f]{16}$')
printf '%s\n' "$store/bench/plain/libexpat.so.1" "$store/bench/pgo/libexpat.so.1" \
	"$store/bench/plain/libexpat.so.1" "$store/bench/pgo/libexpat.so.1" > ../want
expect_same ../want ../loaded "the libexpat each benchmark run loaded"
expect_grep '^\[bench\] plain median' ../out-bench
