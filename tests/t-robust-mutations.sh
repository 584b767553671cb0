#!/bin/bash
# No crash and no hang on any input: deporder reads many corrupted copies of
# a real object, a real archive and a thin archive (bytes flipped, lengths
# cut, header fields overwritten with extreme values) and must end each run
# with status 0 or 1 within the time limit (20 s of CPU), never by a signal.
. "$(dirname "$0")/lib.sh"
need_deporder
need gcc ar

cat > mutate.c <<'EOF2'
/* mutate IN OUT N: writes OUT1 .. OUTN, each IN with a few corruptions
   chosen by its number, the seed (one process for them all). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "rb");
	unsigned char *orig, *buf;
	long full, size, i, n;
	unsigned seed, seeds = (unsigned)strtoul(argv[3], NULL, 10);
	char name[4096];

	if (!f || fseek(f, 0, SEEK_END) || (full = ftell(f)) <= 0)
		return 2;
	rewind(f);
	orig = malloc(full);
	buf = malloc(full);
	if (!orig || !buf || fread(orig, 1, full, f) != (size_t)full)
		return 2;
	fclose(f);
	for (seed = 1; seed <= seeds; seed++) {
		size = full;
		memcpy(buf, orig, full);
		srand(seed);
		n = 1 + rand() % 8;
		for (i = 0; i < n; i++) {
			long at = rand() % size;
			switch (rand() % 4) {
			case 0: /* one random byte */
				buf[at] = (unsigned char)rand();
				break;
			case 1: /* an extreme 32-bit field: 0, -1 or a large value */
				if (at + 4 <= size) {
					static const unsigned values[] = { 0, 0xffffffffu, 0x7fffffffu, 0x10000u };
					unsigned v = values[rand() % 4];
					memcpy(buf + at, &v, 4);
				}
				break;
			case 2: /* within the headers, where the lengths and offsets are */
				buf[rand() % (size < 128 ? size : 128)] ^= (unsigned char)(1u << (rand() % 8));
				break;
			default: /* cut the file */
				if (rand() % 4 == 0 && at > 8)
					size = at;
				break;
			}
		}
		snprintf(name, sizeof name, "%s%u", argv[2], seed);
		f = fopen(name, "wb");
		if (!f || fwrite(buf, 1, size, f) != (size_t)size || fclose(f))
			return 2;
	}
	return 0;
}
EOF2
gcc -O2 -o mutate mutate.c || fail "cannot build the mutator"

cat > a.c <<'EOF2'
#include <stdio.h>
extern int b(int);
static inline int twice(int x) { return 2 * x; }
int a(int x) { printf("%d\n", twice(x)); return b(x); }
int main(void) { return a(1); }
EOF2
cat > b.c <<'EOF2'
int c(int);
int common_var;
int b(int x) { return c(x) + common_var; }
EOF2
cat > c.c <<'EOF2'
__attribute__((weak)) int c(int x) { return x; }
EOF2
gcc -O2 -fcommon -ffunction-sections -c a.c b.c c.c || fail "cannot compile fixtures"
ar rcs libbc.a b.o c.o
mkdir thin && cp b.o c.o thin/ && (cd thin && ar rcsT ../libthin.a b.o c.o)

runs=${MUTATIONS:-150}
./mutate a.o mut-object. "$runs" && ./mutate libbc.a mut-archive. "$runs" && ./mutate libthin.a mut-thin. "$runs" ||
	fail "the mutator could not write its copies"
crashes=0
for kind in object archive thin; do
	for ((seed = 1; seed <= runs; seed++)); do
		case $kind in
		object)  args=("mut-$kind.$seed" libbc.a) ;;
		*)       args=(a.o "mut-$kind.$seed") ;;
		esac
		for gran in object section; do
			status=0
			# The limit set in the process deporder becomes: no timeout(1) between.
			(ulimit -t 20 && exec "$DEPORDER" -q --keep-going --granularity=$gran --format=json "${args[@]}") \
				> out.txt 2> err.txt || status=$?
			if ((status != 0 && status != 1)); then
				crashes=$((crashes + 1))
				printf '%s seed %d (%s): exit status %d\n' "$kind" "$seed" "$gran" "$status" >&2
				head -n 5 err.txt >&2
				cp "${args[-1]}" "crash-$kind-$seed" 2>/dev/null
			fi
		done
	done
done
((crashes == 0)) || fail "$crashes runs crashed, hung or exited with a status other than 0 or 1"
