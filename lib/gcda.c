#include "gcda.h"
#include "util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define GCDA_MAGIC 0x67636461u /* "gcda" */

/* Counter records: 0x01a10000 plus the kind of counter shifted by 17. */
static bool is_counter_tag(uint32_t tag)
{
	return tag >= 0x01a10000u && tag < 0x01a10000u + (64u << 17) &&
	       ((tag - 0x01a10000u) & 0x1ffffu) == 0;
}

static uint32_t word_at(const unsigned char *p, bool swapped)
{
	uint32_t w;

	memcpy(&w, p, sizeof(w));
	return swapped ? __builtin_bswap32(w) : w;
}

/* gcc 12 put a checksum in the header, gave record lengths in bytes (words
   before) and writes an all-zero counter record as its negated length with
   no data.  The version word is "B22*" for 12.2: tens as a letter from
   'A', then units. */
bool gcda_version_12_or_later(uint32_t version)
{
	unsigned tens = version >> 24, units = (version >> 16) & 0xff;

	if (tens < 'A' || tens > 'Z' || units < '0' || units > '9')
		return false;
	return (tens - 'A') * 10 + (units - '0') >= 12;
}

static int walk(const unsigned char *data, size_t size, char **why)
{
	bool swapped, modern;
	size_t header, at;

	if (size < 12) {
		*why = xasprintf("truncated: %zu bytes, shorter than a header", size);
		return -1;
	}
	if (word_at(data, false) == GCDA_MAGIC)
		swapped = false;
	else if (word_at(data, true) == GCDA_MAGIC)
		swapped = true;
	else {
		*why = xstrdup("not a gcov data file (no 'gcda' magic)");
		return -1;
	}
	modern = gcda_version_12_or_later(word_at(data + 4, swapped));
	header = modern ? 16 : 12;
	if (size < header) {
		*why = xasprintf("truncated: %zu bytes, shorter than a header", size);
		return -1;
	}
	for (at = header; at + 4 <= size; ) {
		uint32_t tag = word_at(data + at, swapped), length;
		uint64_t bytes;

		if (tag == 0)
			return 0;
		if (at + 8 > size) {
			*why = xasprintf("truncated: the record at byte %zu has no length", at);
			return -1;
		}
		length = word_at(data + at + 4, swapped);
		if ((int32_t)length < 0 && is_counter_tag(tag))
			bytes = 0;
		else
			bytes = modern ? length : (uint64_t)length * 4;
		if (bytes > size - at - 8) {
			*why = xasprintf("truncated: the record at byte %zu (tag %08x) needs %llu "
					 "bytes, the file has %zu after it", at, tag,
					 (unsigned long long)bytes, size - at - 8);
			return -1;
		}
		at += 8 + bytes;
	}
	*why = xasprintf("truncated: %zu bytes, without the end mark libgcov writes last", size);
	return -1;
}

int gcda_check(const char *path, char **why)
{
	void *map;
	size_t size;
	int status;

	if (map_file(path, &map, &size, why) < 0)
		return -1;
	status = walk(map, size, why);
	munmap(map, size);
	return status;
}
