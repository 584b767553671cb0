/* Unit tests of lib/pagecache.c: a file's resident pages before and after
   eviction, the device a file lives on, and the device's counters and
   read-ahead read from files the test writes (a device whose paths point
   into the test's folder), so that no real device's setting is ever
   written. */
#define _GNU_SOURCE
#include "pagecache.h"
#include "unit.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *folder;

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", folder, name);
}

/* Writes text to folder/name; its path, newly allocated. */
static char *write_text(const char *name, const char *text)
{
	char *path = path_in(name);
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f) != 0)
		fprintf(stderr, "test-pagecache: cannot write %s: %s\n", path, strerror(errno));
	return path;
}

static void test_resident(void)
{
	char *path = path_in("four-pages"), *why = NULL, buffer[4096];
	size_t resident = 99, total = 99;
	struct pagecache_device dev;
	bool on_disk;
	int fd;

	unit_case("a file of 3 pages and a byte, just written");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	memset(buffer, 'x', sizeof(buffer));
	CHECK(fd >= 0 && write(fd, buffer, 4096) == 4096 && write(fd, buffer, 4096) == 4096 &&
	      write(fd, buffer, 4096) == 4096 && write(fd, buffer, 1) == 1 && close(fd) == 0);
	EXPECT_INT(0, pagecache_resident(path, &resident, &total, &why));
	EXPECT_INT(4, total);
	EXPECT_INT(4, resident);

	unit_case("the same file evicted");
	EXPECT_INT(0, pagecache_evict(path, &why));
	EXPECT_INT(0, pagecache_resident(path, &resident, &total, &why));
	EXPECT_INT(4, total);
	on_disk = pagecache_device_of(path, &dev, &why) == 0;
	free(why);
	why = NULL;
	/* tmpfs keeps its pages: they have nowhere else to be */
	if (on_disk)
		EXPECT_INT(0, resident);
	else
		printf("test-pagecache: %s is on no block device: eviction not checked\n", folder);

	unit_case("the evicted file, its last page read back");
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && pread(fd, buffer, 1, 3 * 4096) == 1);
	if (fd >= 0)
		close(fd);
	EXPECT_INT(0, pagecache_resident(path, &resident, &total, &why));
	CHECK(resident >= 1 && resident <= 4);
	free(path);

	unit_case("an empty file");
	path = write_text("empty", "");
	resident = total = 99;
	EXPECT_INT(0, pagecache_resident(path, &resident, &total, &why));
	EXPECT_INT(0, resident);
	EXPECT_INT(0, total);
	free(path);

	unit_case("a missing file");
	path = path_in("missing");
	EXPECT_INT(-1, pagecache_resident(path, &resident, &total, &why));
	{
		char *expected = xasprintf("%s: cannot open: %s", path, strerror(ENOENT));

		EXPECT_STR(expected, why);
		free(why);
		why = NULL;
		EXPECT_INT(-1, pagecache_evict(path, &why));
		EXPECT_STR(expected, why);
		free(expected);
	}
	free(why);
	free(path);
	unit_case(NULL);
}

static void test_device_of(void)
{
	struct pagecache_device dev;
	struct pagecache_reads reads = { 0, 0 };
	char *why = NULL, *path = write_text("on-disk", "x");
	long kb;

	unit_case("the device of a file in the test's folder");
	if (pagecache_device_of(path, &dev, &why) < 0) {
		printf("test-pagecache: %s: device checks skipped\n", why);
		free(why);
		free(path);
		unit_case(NULL);
		return;
	}
	CHECK(dev.name[0] != '\0');
	CHECK(!strncmp(dev.stat_path, "/sys/dev/block/", 15));
	CHECK(strstr(dev.read_ahead_path, "/queue/read_ahead_kb") != NULL);
	EXPECT_INT(0, pagecache_device_reads(&dev, &reads, &why));
	CHECK(reads.sectors >= reads.requests);
	kb = pagecache_read_ahead_kb(&dev, &why);
	CHECK(kb >= 0);
	free(why);
	free(path);

	unit_case("a file on procfs, on no block device");
	why = NULL;
	EXPECT_INT(-1, pagecache_device_of("/proc/self/status", &dev, &why));
	CHECK(why && strstr(why, "/proc/self/status: on no block device"));
	free(why);

	unit_case("a missing file has no device");
	why = NULL;
	path = path_in("missing");
	EXPECT_INT(-1, pagecache_device_of(path, &dev, &why));
	CHECK(why && strstr(why, "cannot stat") && strstr(why, strerror(ENOENT)));
	free(why);
	free(path);
	unit_case(NULL);
}

/* A device whose stat and read_ahead_kb files are the test's. */
static struct pagecache_device fake_device(const char *stat_text, const char *read_ahead_text)
{
	struct pagecache_device dev;
	char *stat_path = stat_text ? write_text("stat", stat_text) : path_in("no-stat");
	char *read_ahead_path = read_ahead_text ? write_text("read_ahead_kb", read_ahead_text) : path_in("no/such");

	memset(&dev, 0, sizeof(dev));
	snprintf(dev.name, sizeof(dev.name), "fake");
	snprintf(dev.stat_path, sizeof(dev.stat_path), "%s", stat_path);
	snprintf(dev.read_ahead_path, sizeof(dev.read_ahead_path), "%s", read_ahead_path);
	free(stat_path);
	free(read_ahead_path);
	return dev;
}

static const struct {
	const char *name, *stat;     /* the stat file's text, NULL: none */
	int status;
	unsigned long long requests, sectors;
	const char *why;             /* after the path and ": " */
} stat_cases[] = {
	{ "a disk's stat line", "   12345      678   901234     5678    90 0 0 0 0 0 0\n", 0, 12345, 901234, NULL },
	{ "three fields are enough", "1 2 3", 0, 1, 3, NULL },
	{ "two fields are not", "1 2\n", -1, 0, 0, "not a block device's stat file" },
	{ "words", "reads merged sectors\n", -1, 0, 0, "not a block device's stat file" },
	{ "an empty file", "", -1, 0, 0, "not a block device's stat file" },
	{ "no file", NULL, -1, 0, 0, "cannot open: No such file or directory" },
};

static const struct {
	const char *name, *text;     /* the read_ahead_kb file's text, NULL: none */
	long kb;
	const char *why;
} read_ahead_cases[] = {
	{ "128 KiB", "128\n", 128, NULL },
	{ "none", "0\n", 0, NULL },
	{ "not a number", "fast\n", -1, "cannot read: not a number" },
	{ "empty", "", -1, "cannot read: not a number" },
	{ "no file", NULL, -1, "cannot read: No such file or directory" },
};

static void test_fake_device(void)
{
	struct pagecache_device dev;
	struct pagecache_reads reads;
	char *why, *expected, *text;
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof(stat_cases) / sizeof(stat_cases[0]); i++) {
		unit_case(stat_cases[i].name);
		dev = fake_device(stat_cases[i].stat, "128\n");
		why = NULL;
		memset(&reads, 0, sizeof(reads));
		EXPECT_INT(stat_cases[i].status, pagecache_device_reads(&dev, &reads, &why));
		if (stat_cases[i].status == 0) {
			EXPECT_INT(stat_cases[i].requests, reads.requests);
			EXPECT_INT(stat_cases[i].sectors, reads.sectors);
			EXPECT_STR(NULL, why);
		} else {
			expected = xasprintf("%s: %s", dev.stat_path, stat_cases[i].why);
			EXPECT_STR(expected, why);
			free(expected);
		}
		free(why);
		unlink(dev.stat_path);
	}
	for (i = 0; i < sizeof(read_ahead_cases) / sizeof(read_ahead_cases[0]); i++) {
		unit_case(read_ahead_cases[i].name);
		dev = fake_device("1 2 3\n", read_ahead_cases[i].text);
		why = NULL;
		EXPECT_INT(read_ahead_cases[i].kb, pagecache_read_ahead_kb(&dev, &why));
		if (read_ahead_cases[i].why) {
			expected = xasprintf("%s: %s", dev.read_ahead_path, read_ahead_cases[i].why);
			EXPECT_STR(expected, why);
			free(expected);
		} else {
			EXPECT_STR(NULL, why);
		}
		free(why);
		unlink(dev.read_ahead_path);
	}

	unit_case("setting the read-ahead writes the number and a newline");
	dev = fake_device("1 2 3\n", "128\n");
	why = NULL;
	EXPECT_INT(0, pagecache_set_read_ahead_kb(&dev, 4096, &why));
	f = fopen(dev.read_ahead_path, "r");
	text = xasprintf("%-16s", "");
	CHECK(f && fgets(text, 16, f));
	if (f)
		fclose(f);
	EXPECT_STR("4096\n", text);
	EXPECT_INT(4096, pagecache_read_ahead_kb(&dev, &why));
	free(text);

	unit_case("setting the read-ahead of a device whose file cannot be written");
	dev = fake_device("1 2 3\n", NULL);
	EXPECT_INT(-1, pagecache_set_read_ahead_kb(&dev, 128, &why));
	expected = xasprintf("%s: cannot write: %s", dev.read_ahead_path, strerror(ENOENT));
	EXPECT_STR(expected, why);
	free(expected);
	free(why);
	unit_case(NULL);
}

int main(void)
{
	int status;

	folder = unit_folder("test-pagecache");
	if (!folder)
		return 1;
	test_resident();
	test_device_of();
	test_fake_device();
	status = unit_end("test-pagecache");
	if (status == 0) {
		char *command = xasprintf("rm -rf '%s'", folder);

		if (system(command) != 0)
			fprintf(stderr, "test-pagecache: cannot remove %s\n", folder);
		free(command);
	} else {
		fprintf(stderr, "test-pagecache: kept %s\n", folder);
	}
	free(folder);
	return status;
}
