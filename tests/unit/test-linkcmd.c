/* Unit tests of lib/linkcmd.c's split of a compile and link in one
   command (gcc -o prog main.cc x.o), which linkopt-cc compiles apart:
   which commands are split, the compile of each source (link-only options
   left out, the compile's own kept, -c SOURCE -o OBJECT last) and the
   link of the objects (each source replaced in place). */
#include "linkcmd.h"
#include "unit.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The words of a NULL-terminated vector joined by blanks; a new string. */
static char *joined(char *const *v)
{
	size_t n = 1, i;
	char *s;

	for (i = 0; v[i]; i++)
		n += strlen(v[i]) + 1;
	s = xcalloc(n, 1);
	for (i = 0; v[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, v[i]);
	}
	return s;
}

/* The words of line (blank-separated) as a vector (strings in buf). */
static char **words(char *buf)
{
	char **v = xcalloc(strlen(buf) / 2 + 2, sizeof(*v)), *save = NULL, *w;
	size_t n = 0;

	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		v[n++] = w;
	return v;
}

static const struct {
	const char *command;
	bool split;
} split_cases[] = {
	{ "g++ -O2 db/db_bench.cc out/a.o out/b.o -o out/db_bench", true },
	{ "gcc -o prog main.c libx.a -lm", true },
	{ "gcc -o prog main.c", false },             /* nothing to order besides the source */
	{ "gcc -c main.c -o main.o", false },         /* a compile */
	{ "gcc -o prog a.o b.o", false },             /* a link: recorded as it is */
	{ "gcc -x c -o prog main.x a.o", false },     /* the language given: left alone */
	{ "gcc -o prog main.c @objs", false },        /* a response file: left alone */
	{ "gcc -o /dev/null main.c a.o", false },     /* a probe */
	{ "gcc -E main.c a.o -o main.i", false },
};

static const struct {
	const char *command;
	int index;
	const char *compile, *link;
} part_cases[] = {
	{ "g++ -pthread -I. -O2 db/db_bench.cc out/a.o out/b.o -o out/db_bench", 0,
	  "g++ -pthread -I. -O2 -ffunction-sections -c db/db_bench.cc -o OBJ",
	  "g++ -pthread -I. -O2 OBJ0 out/a.o out/b.o -o out/db_bench" },
	{ "gcc -O2 -o prog -Wl,--as-needed -L lib -lz -lm -undef main.c x.o -static -shared -T s.ld -u sym -z now -s "
	  "-fuse-ld=gold -Xlinker -Map=m two.c -nostdlib -rdynamic -no-pie -include cfg.h", 1,
	  "gcc -O2 -undef -include cfg.h -ffunction-sections -c two.c -o OBJ",
	  "gcc -O2 -o prog -Wl,--as-needed -L lib -lz -lm -undef OBJ0 x.o -static -shared -T s.ld -u sym -z now -s "
	  "-fuse-ld=gold -Xlinker -Map=m OBJ1 -nostdlib -rdynamic -no-pie -include cfg.h" },
	{ "cc -DX=1 -Ilib -oprog main.c -lfoo a.o", 0,
	  "cc -DX=1 -Ilib -ffunction-sections -c main.c -o OBJ",
	  "cc -DX=1 -Ilib -oprog OBJ0 -lfoo a.o" },
};

int main(void)
{
	size_t i;
	static char *extra[] = { "-ffunction-sections", NULL };
	static char *objects[] = { "OBJ0", "OBJ1", NULL };

	for (i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++) {
		char *buf = xstrdup(split_cases[i].command), **argv = words(buf);

		unit_case(split_cases[i].command);
		EXPECT_INT(split_cases[i].split, linkcmd_compiles_and_links(argv));
		free(argv);
		free(buf);
	}
	for (i = 0; i < sizeof(part_cases) / sizeof(part_cases[0]); i++) {
		char *buf = xstrdup(part_cases[i].command), **argv = words(buf), **compile, **link, *text;

		unit_case(part_cases[i].command);
		CHECK(linkcmd_compiles_and_links(argv));
		compile = linkcmd_compile_part(argv, part_cases[i].index, "OBJ", extra);
		text = joined(compile);
		EXPECT_STR(part_cases[i].compile, text);
		free(text);
		free(compile);
		link = linkcmd_link_part(argv, objects);
		text = joined(link);
		EXPECT_STR(part_cases[i].link, text);
		free(text);
		free(link);
		free(argv);
		free(buf);
	}
	unit_case(NULL);
	return unit_end("test-linkcmd");
}
