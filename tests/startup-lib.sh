# Helpers for the mk/startup.mk tests (sourced after lib.sh and pagein-lib.sh).

# startup_project: writes and compiles, in the current folder, a small
# project that includes mk/startup.mk: prog from main.o and libwork.a, 40
# functions of about 1.5 KiB each in their own sections, of which start-up
# runs 6 scattered ones; prog prints its arguments after a checksum.  The
# Makefile sets STARTUP_RUN from $STARTUP_RUN_LINE (default:
# $(STARTUP_PROGRAM)) and takes the rest from the command line.
startup_project() {
	local i j
	{
		echo '#include <stdio.h>'
		for i in $(seq 0 39); do
			printf '__attribute__((noinline)) int w%d(int x)\n{\n\tvolatile int a[32];\n' "$i"
			printf '\tfor (int k = 0; k < 32; k++)\n\t\ta[k] = x * %d + k;\n' "$((i + 3))"
			for j in $(seq 1 40); do printf '\tx = x * %d + a[%d];\n' "$((j % 7 + 2))" "$((j % 32))"; done
			printf '\treturn x;\n}\n'
		done
	} > work.c
	cat > main.c <<'EOF2'
#include <stdio.h>
int w3(int), w11(int), w19(int), w27(int), w35(int), w38(int);
static __attribute__((noinline)) int error(int x) { return x * 5 + 1; }
int main(int argc, char **argv)
{
	int s = w3(1) + w11(2) + w19(3) + w27(4) + w35(5) + w38(6) + error(argc);
	printf("%d", s);
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	return 0;
}
EOF2
	gcc -O2 -g -ffunction-sections -fdata-sections -c work.c main.c || fail "cannot compile the project"
	rm -f libwork.a && ar rcs libwork.a work.o || fail "ar"
	cat > Makefile <<EOF2
LINKOPT = $TOP
STARTUP_PROG = prog
STARTUP_INPUTS = main.o libwork.a
STARTUP_RUN = ${STARTUP_RUN_LINE:-\$(STARTUP_PROGRAM)}
include \$(LINKOPT)/mk/startup.mk
EOF2
}

# startup_functions PREFIX STATEMENTS: C source of 40 functions PREFIX0 ..
# PREFIX39, each of about STATEMENTS * 10 bytes of code in its own section
# when compiled with -ffunction-sections.
startup_functions() {
	local i j
	for i in $(seq 0 39); do
		printf '__attribute__((noinline)) int %s%d(int x)\n{\n\tvolatile int a[32];\n' "$1" "$i"
		printf '\tfor (int k = 0; k < 32; k++)\n\t\ta[k] = x * %d + k;\n' "$((i + 3))"
		for j in $(seq 1 "$2"); do printf '\tx = x * %d + a[%d];\n' "$((j % 7 + 2))" "$((j % 32))"; done
		printf '\treturn x;\n}\n'
	done
}

# startup_dso_project DIR: writes in DIR the sources and the Makefile of a
# project built out of its tree (make -C BUILD -f DIR/Makefile; sources
# found through VPATH, objects in BUILD/obj): libwork.so (soname
# libwork.so.1) from work.c, and prog from main.c, prog.c and DIR/libextra.a
# (an archive of another build, found through VPATH), linked with
# libwork.so and run through RUNPATH $ORIGIN.  Each of work.c and prog.c has 40 functions of about
# 1.5 KiB; prog's start-up runs 6 scattered ones of each, or all of them
# when its first argument is "all".  prog prints a checksum and its
# arguments.  mk/startup.mk orders both, prog traced with
# STARTUP_RUN = $(STARTUP_PROGRAM) $(RUN_ARGS) (default: "few"), libwork.so
# through prog with the same run.  HOST_LDFLAGS are prog's link flags
# (default: RUNPATH $ORIGIN).
startup_dso_project() {
	local i
	mkdir -p "$1" || fail "mkdir $1"
	startup_functions w 150 > "$1/work.c"
	startup_functions p 150 > "$1/prog.c"
	{
		printf '#include <stdio.h>\n#include <string.h>\n'
		for i in $(seq 0 39); do printf 'int w%d(int), p%d(int);\n' "$i" "$i"; done
		printf 'int extra(int);\nstatic int (*every[])(int) = {\n'
		for i in $(seq 0 39); do printf '\tw%d, p%d,\n' "$i" "$i"; done
		cat <<'EOF2'
};
int main(int argc, char **argv)
{
	int s = w3(1) + w11(2) + w19(3) + w27(4) + w35(5) + w38(6);
	s += p2(1) + p9(2) + p17(3) + p24(4) + p31(5) + p39(6) + extra(argc);
	if (argc > 1 && !strcmp(argv[1], "all"))
		for (unsigned i = 0; i < sizeof(every) / sizeof(every[0]); i++)
			s += every[i](i);
	printf("%d", s);
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	return 0;
}
EOF2
	} > "$1/main.c"
	printf 'int extra(int x)\n{\n\treturn x * 7 + 2;\n}\n' > "$1/extra.c"
	gcc -O2 -fPIC -ffunction-sections -c -o "$1/extra.o" "$1/extra.c" && rm -f "$1/libextra.a" &&
		ar rcs "$1/libextra.a" "$1/extra.o" || fail "cannot build libextra.a"
	cat > "$1/Makefile" <<EOF2
LINKOPT = $TOP
SRC := \$(dir \$(lastword \$(MAKEFILE_LIST)))
VPATH = \$(SRC)
CFLAGS = -O2 -g -fPIC -ffunction-sections -fdata-sections
RUN_ARGS = few
HOST_LDFLAGS = -Wl,-rpath,'\$\$ORIGIN'

all: prog

obj/%.o: %.c
	@mkdir -p obj
	\$(CC) \$(CFLAGS) -c -o \$@ \$<

libwork.so: obj/work.o
	\$(CC) -shared -Wl,-soname,libwork.so.1 -o \$@ obj/work.o
	ln -sf libwork.so libwork.so.1

prog: obj/main.o obj/prog.o libextra.a libwork.so
	\$(CC) -o \$@ \$^ \$(HOST_LDFLAGS)

clean:
	rm -rf obj prog libwork.so libwork.so.1

STARTUP_PROG = prog
STARTUP_INPUTS = obj/main.o obj/prog.o libextra.a libwork.so
STARTUP_LIBS = \$(HOST_LDFLAGS)
STARTUP_RUN = \$(STARTUP_PROGRAM) \$(RUN_ARGS)
STARTUP_DSOS = work
STARTUP_DSO_work = libwork.so
STARTUP_DSO_work_INPUTS = obj/work.o
STARTUP_DSO_work_LDFLAGS = -Wl,-soname,libwork.so.1
STARTUP_DSO_work_HOST = prog
include \$(LINKOPT)/mk/startup.mk
EOF2
}

# startup_sample: the sample program of make demo (samples/startup) built
# in the current folder, and a Makefile that includes mk/startup.mk for
# it: prog from startup.o and libstartup.a, its start-up run with no
# arguments.
startup_sample() {
	"$TOP/samples/startup/gen" src > /dev/null && "$TOP/samples/startup/build" src . > /dev/null || fail "sample"
	cat > Makefile <<EOF2
LINKOPT = $TOP
STARTUP_PROG = prog
STARTUP_INPUTS = startup.o libstartup.a
STARTUP_RUN = \$(STARTUP_PROGRAM)
include \$(LINKOPT)/mk/startup.mk
EOF2
}

# startup_far NAME: appends to work.c a function NAME(int) in a 64 KiB
# block of its own, with 600 KiB of code nothing runs on either side of
# it: a run that calls it reads a read-ahead window more at a cold start.
# (In a file apart from its caller: the compiler must not see that two
# calls of it cancel.)
startup_far() {
	cat >> work.c <<EOF2
__attribute__((noinline, used)) void $1_before(void) { __asm__ volatile (".skip 614400, 0x90"); }
__attribute__((noinline, aligned(65536))) int $1(int x) { return x * 41 + 1; }
__attribute__((noinline, used)) void $1_after(void) { __asm__ volatile (".skip 614400, 0x90"); }
EOF2
}

# startup_model_off FILE: the rows of linkopt-startup --placement=best's
# table in FILE whose measured cold start (training or held out) is more
# than 4 pages from the model's, as "over: ROW" when the model is above
# it (the disk read less than predicted) and "under: ROW" when below (the
# model missed pages the program reads), "not measured: ROW" for a row
# with a model's training figure and no measured one (a failed candidate
# has neither), and a line saying so when there is no table.
startup_model_off() {
	awk '/^[ *] [a-z]/ && $1 != "layout" { rows++; sub(/\(the default link\)/, ""); if ($1 == "*") $1 = ""; $0 = $0
		if ($4 != "-" && $5 == "-") { print "not measured: " $0; next }
		under = over = 0
		for (c = 4; c <= 6; c += 2) if ($(c + 1) != "-") { d = $c - $(c + 1); under += d < -4; over += d > 4 }
		if (under) print "under: " $0; else if (over) print "over: " $0
	} END { if (!rows) print "no table of candidates" }' "$1"
}

# startup_model_agrees FILE COMMAND [ARG]...: fails the test unless the
# model is within 4 pages of the measured cold start on every row of
# FILE, the table of a search.  A disagreement is searched once more
# (COMMAND: --undo, the link again through linkopt-cc and the same
# search, its table on stdout, into FILE.again) and fails the test only when
# the new table disagrees too: a model that misses a page the program
# reads misses it every time.  Twice on CI (2026-12-06) the disk read 16
# and 19 pages less than the model on some layouts; a loop device of
# max_sectors_kb 128 cutting linkopt-prefetch.o's one MADV_WILLNEED of
# more than 128 KiB did that here (t-prefetch-device-limit), and it asks
# 64 KiB at a time since, but CI's next run read 19 pages less again, on
# the training workloads only, and so did this machine once under load:
# pages the prefetch asked for were still being read when the program
# exited, and pfstat counted them with mincore at once (it waits for them
# since: t-pfstat-cold-in-flight).  The failure's one line gives the rows,
# each run of their layouts (pages, read requests, sectors: from
# NAME.best.cold) and what the machine was (kernel, the folder's file
# system, I/O pressure, the loop devices' max_sectors_kb and
# read_ahead_kb, THP, memory).
# startup_memory_cgroup: this process's memory cgroup, its limit and how
# often it was reached (a read-ahead's allocations may fail there).
startup_memory_cgroup() {
	local path d
	path=$(awk -F: '$2 == "memory" || $2 == "" { print $3; exit }' /proc/self/cgroup)
	for d in "/sys/fs/cgroup/memory$path" "/sys/fs/cgroup$path"; do
		if [[ -f $d/memory.limit_in_bytes ]]; then
			echo "$path: limit $(< "$d/memory.limit_in_bytes"), used $(< "$d/memory.usage_in_bytes"), reached $(< "$d/memory.failcnt") times"
			return
		elif [[ -f $d/memory.max ]]; then
			echo "$path: max $(< "$d/memory.max"), used $(< "$d/memory.current"), $(grep -E '^(max|oom) ' "$d/memory.events" | tr '\n' ' ')"
			return
		fi
	done
	echo "$path: no memory controller found"
}

# startup_cold_runs OFF: for each layout of OFF (startup_model_off's
# rows), each cold start the last search measured of it, from the
# NAME.best.cold files under the current folder: "LAYOUT 'WORKLOAD'
# pages_read A,B,C read_requests ... sectors_read ...;".
startup_cold_runs() {
	local layout
	sed -n 's/^[a-z ]*: *//; s/^ *\([^ ]*\) .*/\1/p' "$1" | while read -r layout; do
		find . -name '*.best.cold' -exec awk -F '\t' -v layout="$layout" '$1 == layout || ($1 ~ /^plain/ && layout == "plain") {
			out = $1 " \x27" $2 "\x27"
			for (k = 1; k <= 3; k++) {
				key = k == 1 ? "pages_read" : k == 2 ? "read_requests" : "sectors_read"
				j = $3
				while ((i = index(j, "\"" key "\": {")) > 0) {
					j = substr(j, i)
					v = substr(j, index(j, "\"values\": [") + 11)
					v = substr(v, 1, index(v, "]") - 1)
					gsub(/\.000/, "", v)
					gsub(/, /, ",", v)
					out = out " " key " " v
					j = substr(j, 2)
				}
			}
			printf "%s; ", out
		}' {} +
	done
}

startup_model_agrees() {
	local file=$1
	shift
	startup_model_off "$file" > "$file.off"
	[[ -s $file.off ]] || return 0
	echo "the model is more than 4 pages off the measured cold start, searching again:"
	cat "$file.off"
	"$@" > "$file.again" || fail "the search once more: exit status $?: $(cat "$file.again")"
	cat "$file.again"
	startup_model_off "$file.again" > "$file.again.off"
	[[ -s $file.again.off ]] || return 0
	# one line (what tests/run repeats at the end): the rows, each run of
	# their layouts (NAME.best.cold), then what the machine was.  A model
	# above the disk twice is noted, not failed: the search measures what
	# it chooses, and a model that predicts more than is read makes it
	# pessimistic, never wrong; one below fails (a layout the model
	# prefers may read more than it says)
	local report=fail
	grep -qv '^over: ' "$file.again.off" || report=note
	$report "the model is more than 4 pages off the measured cold start, twice:" \
		"$(tr -s ' ' < "$file.off" | tr '\n' ';') / $(tr -s ' ' < "$file.again.off" | tr '\n' ';')" \
		"runs: $(startup_cold_runs "$file.again.off") kernel $(uname -r)," \
		"$(findmnt -n -o FSTYPE,SOURCE -T "${TMPDIR:-/tmp}" 2>&1), I/O pressure $(head -1 /proc/pressure/io 2>&1)," \
		"loop devices (max_sectors_kb/read_ahead_kb): $(for q in /sys/block/loop*/queue; do
			printf '%s %s/%s ' "${q:11:-6}" "$(cat "$q/max_sectors_kb")" "$(cat "$q/read_ahead_kb")"; done 2>&1)," \
		"THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1)," \
		"$(grep MemAvailable /proc/meminfo), memory cgroup $(startup_memory_cgroup)"
	return 0
}
