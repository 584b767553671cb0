/* liblikely-check.so: the runtime of counting mode.  It is loaded into the
   user's program, so it never exits, aborts or writes to stdout, says what
   went wrong on stderr at most once, and leaves the program's behaviour as
   it was even when it cannot write.

   At exit it writes likely-check.PID (in $LIKELY_CHECK_DIR, else the current
   directory) through a temporary file and a rename.  The format, read by
   `likely-check report`:
     likely-check 1
     module PATH
     site CORRECT INCORRECT CONSTANT EXPECT LINE<TAB>FILE<TAB>FUNCTION<TAB>EXPRESSION
   one "module" line per executable or DSO, followed by its sites.  Tabs and
   newlines inside names are written as spaces. */
#define _GNU_SOURCE
/* only the struct: the runtime counts nothing of its own */
#define LIKELY_CHECK_RUNTIME
#include "likely-check.h"

#include <limits.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODULES_MAX 256

struct module {
	struct likely_check_site **start, **stop;
	char path[PATH_MAX];
};

static struct module modules[MODULES_MAX];
static int module_count;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static int complained;
/* the data lines of modules already unloaded */
static char *saved;
static size_t saved_size;

static void complain(const char *what, int err)
{
	if (__atomic_exchange_n(&complained, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "likely-check: %s: %s\n", what, strerror(err));
}

/* A fork child starts its own count: its file must not repeat the parent's. */
static void zero_counts_in_child(void)
{
	int i;

	for (i = 0; i < module_count; i++) {
		struct likely_check_site **p;

		for (p = modules[i].start; p < modules[i].stop; p++)
			if (*p)
				memset((*p)->counts, 0, sizeof((*p)->counts));
	}
	complained = 0;
	free(saved);
	saved = NULL;
	saved_size = 0;
}

struct module_search {
	uintptr_t address;
	char *path;
};

static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct module_search *search = data;
	ssize_t n;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t low = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || search->address < low ||
		    search->address >= low + ph->p_memsz)
			continue;
		/* the main program has no name here; a dlopen path may be relative */
		if (!info->dlpi_name[0]) {
			n = readlink("/proc/self/exe", search->path, PATH_MAX - 1);
			search->path[n > 0 ? n : 0] = '\0';
		} else if (!realpath(info->dlpi_name, search->path))
			snprintf(search->path, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

void likely_check_register(struct likely_check_site **start, struct likely_check_site **stop)
{
	static int atfork_done;
	struct module_search search;
	int i;

	if (!start || stop <= start)
		return;
	pthread_mutex_lock(&modules_lock);
	for (i = 0; i < module_count; i++)
		if (modules[i].start == start)
			goto out;
	if (module_count == MODULES_MAX) {
		complain("too many modules", ENOMEM);
		goto out;
	}
	if (!atfork_done) {
		atfork_done = 1;
		pthread_atfork(NULL, NULL, zero_counts_in_child);
	}
	modules[module_count].start = start;
	modules[module_count].stop = stop;
	search.address = (uintptr_t)start;
	search.path = modules[module_count].path;
	strcpy(search.path, "?");
	dl_iterate_phdr(find_module, &search);
	module_count++;
out:
	pthread_mutex_unlock(&modules_lock);
}

static void put_clean(FILE *f, const char *s)
{
	for (; s && *s; s++)
		putc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void write_module(FILE *f, const struct module *m)
{
	struct likely_check_site **p;

	fputs("module ", f);
	put_clean(f, m->path);
	putc('\n', f);
	for (p = m->start; p < m->stop; p++) {
		const struct likely_check_site *s = *p;

		if (!s || s->abi != LIKELY_CHECK_ABI)
			continue;
		fprintf(f, "site %llu %llu %llu %ld %u\t",
			__atomic_load_n(&s->counts[1], __ATOMIC_RELAXED),
			__atomic_load_n(&s->counts[0], __ATOMIC_RELAXED),
			__atomic_load_n(&s->counts[2], __ATOMIC_RELAXED), s->expect, s->line);
		put_clean(f, s->file);
		putc('\t', f);
		put_clean(f, s->function);
		putc('\t', f);
		put_clean(f, s->expression);
		putc('\n', f);
	}
}

void likely_check_unregister(struct likely_check_site **start)
{
	char *data = NULL, *grown;
	size_t size = 0;
	FILE *f;
	int i;

	pthread_mutex_lock(&modules_lock);
	for (i = 0; i < module_count; i++)
		if (modules[i].start == start)
			break;
	if (i == module_count)
		goto out;
	f = open_memstream(&data, &size);
	if (!f) {
		complain("cannot hold the counts", errno);
		goto out;
	}
	write_module(f, &modules[i]);
	if (fclose(f) != 0) {
		complain("cannot hold the counts", errno);
		free(data);
		goto out;
	}
	grown = realloc(saved, saved_size + size + 1);
	if (!grown) {
		complain("cannot hold the counts", errno);
		free(data);
		goto out;
	}
	saved = grown;
	memcpy(saved + saved_size, data, size + 1);
	saved_size += size;
	free(data);
	modules[i] = modules[--module_count];
out:
	pthread_mutex_unlock(&modules_lock);
}

static int write_all(int fd, const char *p, size_t size)
{
	while (size > 0) {
		ssize_t n = write(fd, p, size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

__attribute__((destructor)) static void likely_check_write(void)
{
	char path[4096], tmp[4200];
	const char *dir = secure_getenv("LIKELY_CHECK_DIR");
	char *data = NULL;
	size_t size = 0;
	FILE *f;
	int fd, i, saved_errno = errno;

	if (module_count == 0 && saved_size == 0)
		return;
	if (!dir || !*dir)
		dir = ".";
	snprintf(path, sizeof(path), "%s/likely-check.%ld", dir, (long)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path);
	f = open_memstream(&data, &size);
	if (!f) {
		complain("cannot hold the counts", errno);
		goto out;
	}
	fputs("likely-check 1\n", f);
	pthread_mutex_lock(&modules_lock);
	if (saved_size)
		fwrite(saved, 1, saved_size, f);
	for (i = 0; i < module_count; i++)
		write_module(f, &modules[i]);
	pthread_mutex_unlock(&modules_lock);
	if (fclose(f) != 0) {
		complain("cannot hold the counts", errno);
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		complain(path, errno);
		goto out;
	}
	if (write_all(fd, data, size) < 0) {
		complain(path, errno);
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) < 0) {
		complain(path, errno);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		complain(path, errno);
		unlink(tmp);
	}
out:
	free(data);
	errno = saved_errno;
}
