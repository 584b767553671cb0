/* zstd-driver LEVEL FILE...: compresses each FILE with zstd's one-shot API at
   LEVEL, decompresses it and checks the round trip; the workload of
   bench/likely-check for the zstd library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *data;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "zstd-driver: %s: cannot read\n", path);
		exit(1);
	}
	data = malloc((size_t)n + 1);
	if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "zstd-driver: %s: cannot read\n", path);
		exit(1);
	}
	fclose(f);
	*size = (size_t)n;
	return data;
}

int main(int argc, char **argv)
{
	int level, i;

	if (argc < 3) {
		fprintf(stderr, "usage: zstd-driver LEVEL FILE...\n");
		return 2;
	}
	level = atoi(argv[1]);
	for (i = 2; i < argc; i++) {
		size_t size, bound, packed, unpacked;
		char *data = read_file(argv[i], &size), *out, *back;

		bound = ZSTD_compressBound(size);
		out = malloc(bound);
		back = malloc(size + 1);
		if (!out || !back)
			return 1;
		packed = ZSTD_compress(out, bound, data, size, level);
		if (ZSTD_isError(packed)) {
			fprintf(stderr, "zstd-driver: %s: %s\n", argv[i], ZSTD_getErrorName(packed));
			return 1;
		}
		unpacked = ZSTD_decompress(back, size + 1, out, packed);
		if (ZSTD_isError(unpacked) || unpacked != size || memcmp(back, data, size) != 0) {
			fprintf(stderr, "zstd-driver: %s: round trip failed\n", argv[i]);
			return 1;
		}
		printf("%s level %d: %zu -> %zu\n", argv[i], level, size, packed);
		free(data);
		free(out);
		free(back);
	}
	return 0;
}
