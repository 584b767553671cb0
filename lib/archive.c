#include "archive.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define AR_MAGIC "!<arch>\n"
#define AR_THIN_MAGIC "!<thin>\n"
#define AR_MAGIC_LEN 8
#define AR_HEADER_LEN 60

bool archive_is(const void *data, size_t size)
{
	return size >= AR_MAGIC_LEN &&
	       (memcmp(data, AR_MAGIC, AR_MAGIC_LEN) == 0 ||
		memcmp(data, AR_THIN_MAGIC, AR_MAGIC_LEN) == 0);
}

/* Parses a space-padded decimal field; returns false on junk. */
static bool parse_decimal(const unsigned char *field, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	bool any = false;

	for (; i < len && field[i] >= '0' && field[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (field[i] - '0');
		any = true;
	}
	for (; i < len; i++)
		if (field[i] != ' ')
			return false;
	*out = v;
	return any;
}

static uint64_t read_be(const unsigned char *p, int width)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < width; i++)
		v = v << 8 | p[i];
	return v;
}

static int compare_offset(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key;
	const struct archive_member *m = elem;

	return k < m->header_offset ? -1 : k > m->header_offset;
}

static bool parse_index(struct archive *ar, const unsigned char *p, size_t size, int width, char **why)
{
	uint64_t count, i;
	const unsigned char *names, *end = p + size;

	if (size < (size_t)width)
		goto bad;
	count = read_be(p, width);
	if (count > (size - width) / width)
		goto bad;
	names = p + width + count * width;
	ar->symbols = xcalloc(count, sizeof(*ar->symbols));
	for (i = 0; i < count; i++) {
		uint64_t off = read_be(p + width + i * width, width);
		const unsigned char *nul;
		struct archive_member *m;

		if (names >= end || !(nul = memchr(names, '\0', end - names)))
			goto bad;
		m = ar->member_count ? bsearch(&off, ar->members, ar->member_count, sizeof(*m), compare_offset)
				     : NULL;
		if (!m) {
			*why = xasprintf("cannot read archive: symbol index names offset %llu, which is no member",
					 (unsigned long long)off);
			return false;
		}
		ar->symbols[ar->symbol_count].name = (const char *)names;
		ar->symbols[ar->symbol_count].member = m - ar->members;
		ar->symbol_count++;
		names = nul + 1;
	}
	ar->has_index = true;
	return true;
bad:
	*why = xstrdup("cannot read archive: symbol index is truncated");
	return false;
}

struct archive *archive_parse(const char *path, const unsigned char *data, size_t size, char **why)
{
	struct archive *ar = xcalloc(1, sizeof(*ar));
	const unsigned char *index = NULL, *longnames = NULL;
	size_t index_size = 0, longnames_size = 0, capacity = 0;
	int index_width = 4;
	uint64_t pos = AR_MAGIC_LEN;

	*why = NULL;
	ar->path = xstrdup(path);
	if (!archive_is(data, size)) {
		*why = xstrdup("cannot read archive: no ar magic");
		goto fail;
	}
	ar->thin = memcmp(data, AR_THIN_MAGIC, AR_MAGIC_LEN) == 0;
	while (pos < size) {
		const unsigned char *h = data + pos;
		uint64_t member_size;
		const unsigned char *body;
		bool special;

		if (pos & 1) { /* members are 2-aligned; the pad byte is '\n' */
			pos++;
			continue;
		}
		if (size - pos < AR_HEADER_LEN) {
			*why = xasprintf("cannot read archive: truncated member header at offset %llu", (unsigned long long)pos);
			goto fail;
		}
		if (h[58] != '`' || h[59] != '\n' || !parse_decimal(h + 48, 10, &member_size)) {
			*why = xasprintf("cannot read archive: malformed member header at offset %llu", (unsigned long long)pos);
			goto fail;
		}
		body = h + AR_HEADER_LEN;
		special = h[0] == '/' && (h[1] == ' ' || h[1] == '/' || memcmp(h, "/SYM64/ ", 8) == 0);
		/* A thin archive stores only its index and long names inline. */
		if ((!ar->thin || special) && member_size > size - pos - AR_HEADER_LEN) {
			*why = xasprintf("cannot read archive: member at offset %llu extends past the end of the file",
					 (unsigned long long)pos);
			goto fail;
		}
		if (special) {
			if (h[1] == ' ') {
				index = body, index_size = member_size, index_width = 4;
			} else if (h[1] == 'S') {
				index = body, index_size = member_size, index_width = 8;
			} else {
				longnames = body, longnames_size = member_size;
			}
		} else {
			struct archive_member *m = ARRAY_PUSH(ar->members, ar->member_count, capacity);
			char *name;

			memset(m, 0, sizeof(*m));
			m->header_offset = pos;
			if (h[0] == '/' && h[1] >= '0' && h[1] <= '9') {
				uint64_t off;
				const unsigned char *n, *e;

				if (!parse_decimal(h + 1, 15, &off) || !longnames || off >= longnames_size) {
					*why = xasprintf("cannot read archive: member at offset %llu has a bad long-name reference",
							 (unsigned long long)pos);
					goto fail;
				}
				n = longnames + off;
				for (e = n; e < longnames + longnames_size && *e != '\n'; e++)
					;
				if (e > n && e[-1] == '/')
					e--;
				name = xstrndup((const char *)n, e - n);
			} else {
				const unsigned char *e = memchr(h, '/', 16);
				size_t len = e ? (size_t)(e - h) : 16;

				while (!e && len > 0 && h[len - 1] == ' ')
					len--;
				name = xstrndup((const char *)h, len);
			}
			m->name = name;
			if (!ar->thin) {
				m->data = body;
			}
			m->size = member_size;
		}
		pos += AR_HEADER_LEN + ((!ar->thin || special) ? member_size : 0);
	}
	if (index && !parse_index(ar, index, index_size, index_width, why))
		goto fail;
	return ar;
fail:
	archive_free(ar);
	return NULL;
}

char *archive_member_path(const struct archive *ar, const struct archive_member *m)
{
	const char *slash = strrchr(ar->path, '/');

	if (m->name[0] == '/' || !slash)
		return xstrdup(m->name);
	return xasprintf("%.*s/%s", (int)(slash - ar->path), ar->path, m->name);
}

void archive_free(struct archive *ar)
{
	size_t i;

	if (!ar)
		return;
	for (i = 0; i < ar->member_count; i++)
		free(ar->members[i].name);
	free(ar->members);
	free(ar->symbols);
	free(ar->path);
	free(ar);
}
