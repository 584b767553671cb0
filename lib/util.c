#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *progname = "linkopt";

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", progname, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
	exit(EXIT_INPUT);
}

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatal("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (!p)
		fatal("out of memory allocating %zu x %zu bytes", count, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		fatal("out of memory allocating %zu bytes", n);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("cannot format message: %s", strerror(errno));
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void grow_array(void *array, size_t *capacity, size_t need, size_t elem)
{
	void **p = array;
	size_t cap = *capacity;

	if (need <= cap)
		return;
	if (cap < 8)
		cap = 8;
	while (cap < need)
		cap *= 2;
	*p = xrealloc(*p, cap * elem);
	*capacity = cap;
}

uint64_t hash_string(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static struct strmap_slot *strmap_find(const struct strmap *map, const char *key, uint64_t h)
{
	size_t mask = map->capacity - 1;
	size_t i = h & mask;

	for (;;) {
		struct strmap_slot *slot = &map->slots[i];

		if (!slot->key || (slot->hash == h && strcmp(slot->key, key) == 0))
			return slot;
		i = (i + 1) & mask;
	}
}

void *strmap_get(const struct strmap *map, const char *key)
{
	struct strmap_slot *slot;

	if (!map->capacity)
		return NULL;
	slot = strmap_find(map, key, hash_string(key));
	return slot->key ? slot->value : NULL;
}

void **strmap_slot(struct strmap *map, const char *key)
{
	uint64_t h = hash_string(key);
	struct strmap_slot *slot;

	if ((map->count + 1) * 4 >= map->capacity * 3) {
		struct strmap bigger = { 0 };
		size_t i;

		bigger.capacity = map->capacity ? map->capacity * 2 : 64;
		bigger.slots = xcalloc(bigger.capacity, sizeof(*bigger.slots));
		for (i = 0; i < map->capacity; i++) {
			struct strmap_slot *old = &map->slots[i];

			if (old->key)
				*strmap_find(&bigger, old->key, old->hash) = *old;
		}
		bigger.count = map->count;
		free(map->slots);
		*map = bigger;
	}
	slot = strmap_find(map, key, h);
	if (!slot->key) {
		slot->key = key;
		slot->hash = h;
		slot->value = NULL;
		map->count++;
	}
	return &slot->value;
}

void strmap_free(struct strmap *map)
{
	free(map->slots);
	map->slots = NULL;
	map->count = map->capacity = 0;
}

mode_t file_creation_mask(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

int map_file(const char *path, void **map, size_t *size, char **why)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0) {
		*why = xasprintf("cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*why = xstrdup(S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return -1;
	}
	if (st.st_size == 0) {
		*why = xstrdup("file format not recognized: the file is empty");
		close(fd);
		return -1;
	}
	/* Private and writable: libelf may convert in place; nothing reaches the file. */
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		*why = xasprintf("cannot map: %s", strerror(errno));
		return -1;
	}
	*map = p;
	*size = st.st_size;
	return 0;
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0. */
static int utf8_length(const unsigned char *s)
{
	int n, i;
	unsigned long c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

void json_fprint_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', f);
	while (*p) {
		int n = utf8_length(p);

		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || n == 0)
			fprintf(f, "\\u%04x", *p);
		else
			fwrite(p, 1, n, f);
		p += n ? n : 1;
	}
	putc('"', f);
}

void json_print_string(const char *s)
{
	json_fprint_string(stdout, s);
}

void json_fprint_format(FILE *f, const char *name, int version)
{
	fprintf(f, "\"format\": ");
	json_fprint_string(f, name);
	fprintf(f, ", \"format_version\": %d, ", version);
}

void json_print_format(const char *name, int version)
{
	json_fprint_format(stdout, name, version);
}

#ifdef __SANITIZE_ADDRESS__
/* The tools are short-lived and leave their tables to exit(); leaks are no
   finding in the sanitizer build, memory errors are, with a status (99) that
   no tool uses, so that a test cannot mistake one for an input error. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0:exitcode=99";
}

const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "exitcode=99:print_stacktrace=1";
}
#endif

int u64_compare(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

size_t u64_sort_unique(uint64_t *values, size_t n)
{
	size_t i, m = 0;

	if (!n)
		return 0;
	qsort(values, n, sizeof(*values), u64_compare);
	for (i = 0; i < n; i++)
		if (!m || values[m - 1] != values[i])
			values[m++] = values[i];
	return m;
}
