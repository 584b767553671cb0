# Helpers for the cold-start tests of deporder --evaluate (sourced after
# lib.sh and pagein-lib.sh).

# need_prefetch: sets prefetch to the built linkopt-prefetch.o, or fails.
need_prefetch() {
	prefetch=$TOP/prefetch/linkopt-prefetch.o
	[[ -f $prefetch ]] || fail "linkopt-prefetch.o is not built"
}

# coldstart_program: writes, compiles and links in the current folder a
# program whose start-up is known.  In source order, as the default link
# lays them out: 24 cold functions of about 12 KiB each (a 12000-byte hole
# in the middle), among which 6 small hot ones and 2 hot ones of 12 KiB
# (a call runs code at both ends of those); 12 cold tables of 8 KiB in
# .rodata, among which 6 small objects main reads 3 of, and one hot table
# of 8 KiB it reads at three places; 6 tables of 512 pointers that ld.so
# relocates, main calls through 2.  Each in its own section: an order packs
# the hot code and the hot data together.  prog is the default link
# (prog.map its map), trace pagein's trace of it, order.ld deporder's
# order of it, ordered the relink with that order and ordered.trace
# pagein's trace of that.
coldstart_program() {
	local i
	{
		echo '#include <stdio.h>'
		for i in $(seq 0 23); do
			printf '__attribute__((noinline)) int c%d(int x)\n{\n\tif (x == -7)\n' "$i"
			printf '\t\t__asm__ volatile(".skip 12000, 0x90");\n\treturn x * %d + 1;\n}\n' "$((i + 2))"
			if (( i % 4 == 1 )); then
				printf '__attribute__((noinline)) int h%d(int x)\n{\n\treturn x * %d + 3;\n}\n' \
					"$((i / 4))" "$((i + 5))"
			fi
			if (( i == 9 || i == 17 )); then
				printf '__attribute__((noinline)) int g%d(int x)\n{\n\tif (x == -7)\n' "$i"
				printf '\t\t__asm__ volatile(".skip 12000, 0x90");\n\treturn x * %d + 2;\n}\n' "$((i + 3))"
			fi
		done
		for i in $(seq 0 11); do
			printf 'const unsigned char t%d[8192] = { [0] = %d, [8191] = %d };\n' "$i" "$((i + 1))" "$((i + 3))"
			if (( i % 2 )); then
				printf 'const int s%d[4] = { %d, %d, %d, %d };\n' "$((i / 2))" "$i" "$((i + 1))" "$((i + 2))" \
					"$((i + 3))"
			fi
			if (( i == 6 )); then
				printf 'const unsigned char hot[8192] = { [0] = 1, [4100] = 2, [8191] = 3 };\n'
			fi
		done
		for i in $(seq 0 5); do
			printf 'int (*const p%d[512])(int) = { [0 ... 510] = c%d, [511] = h%d };\n' "$i" "$i" "$i"
		done
	} > work.c
	cat > main.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int h0(int), h1(int), h2(int), h3(int), h4(int), h5(int), g9(int), g17(int);
extern const int s1[4], s3[4], s5[4];
extern const unsigned char hot[8192];
extern int (*const p0[512])(int), (*const p3[512])(int);
int main(int argc, char **argv)
{
	int i = argc > 1 ? atoi(argv[1]) : 0;
	int s = h0(1) + h1(2) + h2(3) + h3(4) + h4(5) + h5(6) + g9(7) + g17(8);

	s += s1[i] + s3[i + 1] + s5[i + 2] + hot[i] + hot[i + 4100] + hot[i + 8191];
	s += p0[i + 511](1) + p3[i + 511](2);
	printf("%d\n", s);
	return 0;
}
EOF
	gcc -O2 -g -ffunction-sections -fdata-sections -c work.c main.c || fail "cannot compile the program"
	coldstart_link=(gcc -o prog main.o work.o)
	"${coldstart_link[@]}" -Wl,-Map=prog.map || fail "the default link"
	"$PAGEIN" --granularity=function --output="$PWD/trace" -- ./prog > want.out 2> pagein.err ||
		fail "pagein: $(head -3 pagein.err)"
	deporder_ok order.ld order.err -q --granularity=section --trace trace --map prog.map --emit=gnu-ld \
		--cc -- "${coldstart_link[@]}"
	gcc -o ordered main.o work.o -Wl,-T,order.ld || fail "the ordered link"
	"$PAGEIN" --granularity=function --output="$PWD/ordered.trace" -- ./ordered > got.out 2> pagein.err ||
		fail "pagein on the ordered program: $(head -3 pagein.err)"
	expect_same want.out got.out "the ordered program's output"
}

# predict KB: "READ-NOW READ-ORDERED REQS-NOW REQS-ORDERED", deporder
# --evaluate's cold start of prog and of its order at KB KiB of read-ahead.
predict() {
	deporder_ok evaluate.out evaluate.err -q --granularity=section --evaluate --read-ahead-kb="$1" \
		--trace trace --map prog.map --cc -- "${coldstart_link[@]}"
	awk 'NR == 2 { print $6, $7, $8, $9 }' evaluate.out
}

# file_pages TRACE BINARY: the pages of BINARY's file read at a cold start
# without read-ahead, one per line.
file_pages() {
	local trace=$1 binary=$2 base segs a off va fsz msz p
	base=$(base_of "$trace" "$binary")
	[[ -n $base ]] || fail "$trace has no object line for $binary"
	segs=$(readelf -lW "$binary" | awk '$1 == "LOAD" { print $2, $3, $5, $6 }')
	[[ -n $segs ]] || fail "readelf finds no PT_LOAD in $binary"
	{
		echo 0
		while read -r off va fsz msz; do
			(( msz > fsz && (va + fsz) % 4096 )) && echo $(( (off + fsz) / 4096 ))
		done <<< "$segs"
		awk '$1 !~ /^#/ && ($3 == "C" || $3 == "D") { print $2 }' "$trace" | while read -r a; do
			a=$(( a - base ))
			while read -r off va fsz msz; do
				if (( a + 4095 >= va && a < va + msz )); then
					p=$(( a / 4096 - va / 4096 + off / 4096 ))
					(( p < (off + fsz + 4095) / 4096 )) && echo $p
					break
				fi
			done <<< "$segs"
		done
	} | sort -n -u
}

# need_coldstart_loop: skips the test unless it can start programs cold
# from a loop device of its own: root, the tools, /dev/loop-control, and
# the page cache the model follows (Linux 6.16 and later).
need_coldstart_loop() {
	local major minor
	[[ $(id -u) == 0 ]] || skip "needs root, to attach a loop device and mount it"
	need losetup mkfs.ext4 mount umount
	[[ -e /dev/loop-control ]] || skip "no loop devices (/dev/loop-control missing)"
	IFS=.- read -r major minor _ <<< "$(uname -r)"
	(( major > 6 || (major == 6 && minor >= 16) )) ||
		skip "the model follows the page cache of Linux 6.16 and later; this is $(uname -r)"
}

# coldstart_mount: a 16 MiB ext4 image attached to a free loop device
# (direct I/O: the image's own pages are not cached twice), mounted on
# ./mnt; $loop is the device, $queue its /sys queue folder.  Detached when
# the test ends, with the queue's max_sectors_kb and read_ahead_kb as they
# were (a loop device keeps them when detached).  Skips the test when no
# loop device is free.
coldstart_mount() {
	truncate -s 16M image
	mkfs.ext4 -q -F image || fail "mkfs.ext4"
	loop=$(losetup --find --show --direct-io=on image 2> losetup.err) || skip "no free loop device: $(cat losetup.err)"
	queue=/sys/block/${loop#/dev/}/queue
	coldstart_was_sectors=$(< "$queue/max_sectors_kb") coldstart_was_ahead=$(< "$queue/read_ahead_kb")
	coldstart_mounted=no
	at_exit coldstart_unmount
	mkdir mnt
	mount -o noatime "$loop" mnt || fail "cannot mount $loop"
	coldstart_mounted=yes
}

coldstart_unmount() {
	[[ $coldstart_mounted == yes ]] && { umount mnt || umount -l mnt; }
	echo "$coldstart_was_sectors" > "$queue/max_sectors_kb"
	echo "$coldstart_was_ahead" > "$queue/read_ahead_kb"
	losetup -d "$loop"
}

# untraced_program [tables]: writes prog.c, a program whose 40 functions
# of 8 KiB (cold0 to cold39) run only when argv[1] names one (through a
# table), and whose 6 small ones (hot0 to hot5) run at every start; with
# tables, each coldN returns a byte of tableN, 8 KiB of .rodata of its own
# (the first byte of its first page, called with one argument), and hot0
# one of hot_table.
untraced_program() {
	local tables=${1:-} extra i
	{
		echo '#include <stdio.h>'
		echo '#include <stdlib.h>'
		[[ -n $tables ]] && echo 'const unsigned char hot_table[64] = { [0] = 5, [63] = 6 };'
		for i in $(seq 0 39); do
			[[ -n $tables ]] &&
				printf 'const unsigned char table%d[8192] = { [0] = %d, [4096] = %d, [8191] = 1 };\n' "$i" \
					"$((i + 1))" "$((i + 2))"
			printf '__attribute__((noinline)) int cold%d(int x)\n{\n\tif (x == -7)\n' "$i"
			printf '\t\t__asm__ volatile(".skip 8000, 0x90");\n'
			if [[ -n $tables ]]; then
				printf '\treturn table%d[(x * 4096) %% 8192] + x;\n}\n' "$i"
			else
				printf '\treturn x * %d + 1;\n}\n' "$((i + 2))"
			fi
		done
		for i in $(seq 0 5); do
			extra=
			[[ -n $tables && $i == 0 ]] && extra=' + hot_table[x % 64]'
			printf '__attribute__((noinline)) int hot%d(int x)\n{\n\treturn x * %d + 3%s;\n}\n' "$i" "$((i + 5))" \
				"$extra"
		done
		printf 'int (*const table[40])(int) = {'
		for i in $(seq 0 39); do printf ' cold%d,' "$i"; done
		echo ' };'
		cat <<'EOF2'
int main(int argc, char **argv)
{
	int s = hot0(1) + hot1(2) + hot2(3) + hot3(4) + hot4(5) + hot5(6);

	if (argc > 1)
		s += table[atoi(argv[1]) % 40](argc);
	printf("%d\n", s);
	return 0;
}
EOF2
	} > prog.c
}

# file_offset_of FILE SYMBOL: the file offset of SYMBOL (nm) in FILE, by
# the PT_LOAD segment whose file bytes hold it; nothing when none does
file_offset_of() {
	local a
	a=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[[ -n $a ]] || return 0
	readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }' | while read -r off va fsz; do
		((16#${va#0x} <= 16#$a && 16#$a < 16#${va#0x} + 16#${fsz#0x})) &&
			echo $((16#$a - 16#${va#0x} + 16#${off#0x}))
	done
}

# cut_record_offset FILE: the file offset of linkopt_cut's record (lib/cut.h)
cut_record_offset() {
	file_offset_of "$1" linkopt_cut
}

# model_reads_at FILE PAGE: how many pages the model's fault on file page
# PAGE read at FILE's own cold start, in FILE.requests (pagein report
# --read-requests of a trace of FILE; its libraries' starts not read)
model_reads_at() {
	sed -n "/cold start of $(printf '%s' "$PWD/$1" | sed 's/[\/&.]/\\&/g') /,/cold start of \//p" "$1.requests" |
		awk -v p="$2" '/fault on page/ { split($2, r, "-"); if (p >= r[1] && p <= r[2]) print $3 }' | head -1
}

# maps_count FILE MAPS: the mappings of FILE (a path under $here, the
# test's folder as /proc/PID/maps names it) in MAPS, a copy of
# /proc/PID/maps written by tests/maps-at-exit.c
maps_count() {
	awk -v f="$here/$1" '$6 == f' "$2" | wc -l
}

# cold_pages_mode FILE ARG...: the pages of FILE (on the loop device) a
# cold start of FILE ARG... reads most often in 5 runs, after one not
# counted (./coldstart, compiled from bench/lib/coldstart.c); the first
# map of the runs in cold_runs.txt
cold_pages_mode() {
	local f=$1 run
	./coldstart "$f" -- "$@" > /dev/null || fail "the cold run of $f"
	for run in 1 2 3 4 5; do
		./coldstart --map "$f" -- "$@" || fail "the cold run of $f"
	done > cold_runs.txt
	awk '!/^map/ { print $2 }' cold_runs.txt | sort | uniq -c | sort -k1,1nr -k2,2nr | awk 'NR == 1 { print $2 }'
}

# cold_as_predicted ARG FILE...: as root, FILEs copied onto a loop device
# at 128 KiB of read-ahead (coldstart_mount), a cold start of each FILE
# ARG reads what the model predicted in FILE.requests (pagein report
# --read-requests of a trace of FILE ARG); the pages of each in
# measured[FILE] (declare -A measured before)
cold_as_predicted() {
	local arg=$1 f predicted pages
	shift
	need_coldstart_loop
	gcc -O2 -o coldstart "$TOP/bench/lib/coldstart.c" || fail "cannot compile bench/lib/coldstart.c"
	coldstart_mount
	cp "$@" mnt/ && sync
	echo 128 > "$queue/read_ahead_kb" || fail "cannot set read_ahead_kb of $loop"
	for f; do
		predicted=$(awk -v p="$PWD/$f" '$1 == p { n = split($0, x, " "); print x[n - 1] }' $f.requests)
		[[ $predicted =~ ^[0-9]+$ ]] || fail "pagein-report names no cold start of $f: $(cat $f.requests)"
		pages=$(cold_pages_mode mnt/$f "$arg")
		[[ $pages == "$predicted" ]] ||
			fail "a cold start of $f $arg read $pages pages, the model predicts $predicted; read: $(grep -m1 '^map' cold_runs.txt)"
		measured[$f]=$pages
	done
}
