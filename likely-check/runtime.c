/* liblikely-check.so: the runtime of counting mode.  It is loaded into the
   user's program, so it never exits, aborts or writes to stdout, says what
   went wrong on stderr at most once, and leaves the program's behaviour as
   it was even when it cannot write.

   At exit it writes likely-check.PID.SUFFIX (in $LIKELY_CHECK_DIR, else the
   current directory, as they were when the runtime was loaded), SUFFIX
   random and the name taken only when no file has it: two processes never
   share a name, not with the same PID (PID namespaces, a PID reused).  The
   file is written as a hidden temporary (.likely-check.PID.tmpXXXXXX, which
   no likely-check.* matches) and linked to its name when complete.  The
   format, read by `likely-check report`:
     likely-check 1
     module PATH
     site CORRECT INCORRECT CONSTANT EXPECT LINE<TAB>FILE<TAB>FUNCTION<TAB>EXPRESSION
   one "module" line per executable or DSO, followed by its sites.  Tabs and
   newlines inside names are written as spaces.  A DSO loaded and unloaded
   many times (dlopen/dlclose) is one block: the counts of each unload are
   added to those of the same module (same path, same site table) already
   unloaded, so the file and the memory held stay the size of one block per
   distinct module. */
#define _GNU_SOURCE
/* only the struct: the runtime counts nothing of its own */
#define LIKELY_CHECK_RUNTIME
#include "likely-check.h"

#include <limits.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MODULES_MAX 256
/* distinct modules unloaded whose counts are kept until exit */
#define SAVED_MAX 1024

/* A module's sites: its table [start, stop), and the sites registered one
   by one (extra: C++ inline and template functions, whose static sites gcc
   puts in COMDAT sections of their own, outside the table), each once. */
struct module {
	struct likely_check_site **start, **stop;
	struct likely_check_site **extra;
	size_t extra_count, extra_capacity;
	uintptr_t base; /* the load address, which tells modules apart */
	char path[PATH_MAX];
};

/* The counts of a module already unloaded, summed over its loads. */
struct saved_module {
	char *path;
	char *identity; /* "EXPECT LINE\tFILE\tFUNCTION\tEXPRESSION\n" per site */
	size_t identity_size, site_count;
	unsigned long hash; /* of path and identity */
	unsigned long long (*counts)[3]; /* per site: correct, incorrect, constant */
};

static struct module modules[MODULES_MAX];
static int module_count;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static int complained;
static struct saved_module saved[SAVED_MAX];
static size_t saved_count;

static void complain(const char *what, int err)
{
	if (__atomic_exchange_n(&complained, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "likely-check: %s: %s\n", what, strerror(err));
}

/* How many sites module m has, and the i-th of them (NULL: a hole). */
static size_t module_sites(const struct module *m)
{
	return (size_t)(m->stop - m->start) + m->extra_count;
}

static struct likely_check_site *module_site(const struct module *m, size_t i)
{
	size_t table = (size_t)(m->stop - m->start);

	return i < table ? m->start[i] : m->extra[i - table];
}

/* Forgets module i (its extra sites' list freed). */
static void drop_module(int i)
{
	free(modules[i].extra);
	modules[i] = modules[--module_count];
}

static void saved_free(void)
{
	size_t i;

	for (i = 0; i < saved_count; i++) {
		free(saved[i].path);
		free(saved[i].identity);
		free(saved[i].counts);
	}
	saved_count = 0;
}

static void lock_modules(void)
{
	pthread_mutex_lock(&modules_lock);
}

static void unlock_modules(void)
{
	pthread_mutex_unlock(&modules_lock);
}

/* A fork child starts its own count: its file must not repeat the
   parent's.  The lock was taken before the fork, so that no other thread
   of the parent held it at the fork (the child would wait forever). */
static void zero_counts_in_child(void)
{
	int i;

	for (i = 0; i < module_count; i++) {
		size_t k;

		for (k = 0; k < module_sites(&modules[i]); k++)
			if (module_site(&modules[i], k))
				memset(module_site(&modules[i], k)->counts, 0, sizeof(module_site(&modules[i], k)->counts));
	}
	complained = 0;
	saved_free();
	unlock_modules();
}

struct module_search {
	uintptr_t address;
	uintptr_t base;
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
		search->base = info->dlpi_addr;
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

/* The module holding address: its entry, made (with no table yet) when
   there is none; NULL when there is no room.  *search gets its base and
   path.  Called with modules_lock held. */
static struct module *module_at(uintptr_t address, struct module_search *search, char *path)
{
	static int atfork_done;
	int i;

	search->address = address;
	search->base = 0;
	search->path = path;
	strcpy(path, "?");
	dl_iterate_phdr(find_module, search);
	for (i = 0; i < module_count; i++)
		if (modules[i].base == search->base && !strcmp(modules[i].path, path))
			return &modules[i];
	if (module_count == MODULES_MAX) {
		complain("too many modules", ENOMEM);
		return NULL;
	}
	if (!atfork_done) {
		atfork_done = 1;
		pthread_atfork(lock_modules, unlock_modules, zero_counts_in_child);
	}
	memset(&modules[module_count], 0, sizeof(modules[module_count]));
	modules[module_count].base = search->base;
	strcpy(modules[module_count].path, path);
	return &modules[module_count++];
}

static int in_table(const struct module *m, const struct likely_check_site *site)
{
	struct likely_check_site **p;

	for (p = m->start; p < m->stop; p++)
		if (*p == site)
			return 1;
	return 0;
}

void likely_check_register(struct likely_check_site **start, struct likely_check_site **stop)
{
	static char path[PATH_MAX];
	struct module_search search;
	struct module *m;
	size_t k;
	int i;

	if (!start || stop <= start)
		return;
	pthread_mutex_lock(&modules_lock);
	for (i = 0; i < module_count; i++)
		if (modules[i].start == start)
			goto out;
	m = module_at((uintptr_t)start, &search, path);
	if (!m || m->start)
		goto out;
	m->start = start;
	m->stop = stop;
	/* sites registered one by one before the table: once each */
	for (k = 0; k < m->extra_count;)
		if (in_table(m, m->extra[k]))
			m->extra[k] = m->extra[--m->extra_count];
		else
			k++;
out:
	pthread_mutex_unlock(&modules_lock);
}

void likely_check_register_site(struct likely_check_site *site)
{
	static char path[PATH_MAX];
	struct module_search search;
	struct module *m;
	size_t k;

	if (!site)
		return;
	pthread_mutex_lock(&modules_lock);
	m = module_at((uintptr_t)site, &search, path);
	if (!m || in_table(m, site))
		goto out;
	for (k = 0; k < m->extra_count; k++)
		if (m->extra[k] == site)
			goto out;
	if (m->extra_count == m->extra_capacity) {
		size_t capacity = m->extra_capacity ? 2 * m->extra_capacity : 64;
		struct likely_check_site **more = realloc(m->extra, capacity * sizeof(*more));

		if (!more) {
			complain("cannot hold a site of an inline function", ENOMEM);
			goto out;
		}
		m->extra = more;
		m->extra_capacity = capacity;
	}
	m->extra[m->extra_count++] = site;
out:
	pthread_mutex_unlock(&modules_lock);
}

static void put_clean(FILE *f, const char *s)
{
	for (; s && *s; s++)
		putc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

/* Writes what identifies site s: "EXPECT LINE\tFILE\tFUNCTION\tEXPRESSION\n". */
static void write_identity(FILE *f, const struct likely_check_site *s)
{
	fprintf(f, "%ld %u\t", s->expect, s->line);
	put_clean(f, s->file);
	putc('\t', f);
	put_clean(f, s->function);
	putc('\t', f);
	put_clean(f, s->expression);
	putc('\n', f);
}

/* The sites of the runtime's ABI; others are left out everywhere. */
static int site_usable(const struct likely_check_site *s)
{
	return s && s->abi == LIKELY_CHECK_ABI;
}

static void write_module(FILE *f, const struct module *m)
{
	size_t k;

	fputs("module ", f);
	put_clean(f, m->path);
	putc('\n', f);
	for (k = 0; k < module_sites(m); k++) {
		const struct likely_check_site *s = module_site(m, k);

		if (!site_usable(s))
			continue;
		fprintf(f, "site %llu %llu %llu ",
			__atomic_load_n(&s->counts[1], __ATOMIC_RELAXED),
			__atomic_load_n(&s->counts[0], __ATOMIC_RELAXED),
			__atomic_load_n(&s->counts[2], __ATOMIC_RELAXED));
		write_identity(f, s);
	}
}

static void write_saved(FILE *f, const struct saved_module *m)
{
	const char *line = m->identity;
	size_t i;

	fputs("module ", f);
	put_clean(f, m->path);
	putc('\n', f);
	for (i = 0; i < m->site_count; i++) {
		const char *end = memchr(line, '\n', m->identity + m->identity_size - line);

		if (!end)
			break;
		fprintf(f, "site %llu %llu %llu ", m->counts[i][0], m->counts[i][1], m->counts[i][2]);
		fwrite(line, 1, (size_t)(end - line) + 1, f);
		line = end + 1;
	}
}

static unsigned long hash_bytes(unsigned long h, const char *p, size_t n)
{
	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3UL;
	}
	return h;
}

/* A count that would pass 2^64 - 1 stays there: no run counts that often,
   and the report refuses it. */
static unsigned long long add_saturating(unsigned long long a, unsigned long long b)
{
	unsigned long long sum;

	return __builtin_add_overflow(a, b, &sum) ? ~0ULL : sum;
}

/* Sets fresh's identity, site count and hash from module m; -1 with errno
   set when there is no memory for it. */
static int describe_module(const struct module *m, struct saved_module *fresh)
{
	size_t k;
	FILE *f;

	memset(fresh, 0, sizeof(*fresh));
	f = open_memstream(&fresh->identity, &fresh->identity_size);
	if (!f)
		return -1;
	for (k = 0; k < module_sites(m); k++)
		if (site_usable(module_site(m, k))) {
			write_identity(f, module_site(m, k));
			fresh->site_count++;
		}
	if (fclose(f) != 0) {
		free(fresh->identity);
		return -1;
	}
	fresh->hash = hash_bytes(hash_bytes(0xcbf29ce484222325UL, m->path, strlen(m->path) + 1),
				 fresh->identity, fresh->identity_size);
	return 0;
}

/* The kept module with fresh's path and identity, or NULL. */
static struct saved_module *find_saved(const struct saved_module *fresh, const char *path)
{
	size_t i;

	for (i = 0; i < saved_count; i++)
		if (saved[i].hash == fresh->hash && saved[i].site_count == fresh->site_count &&
		    saved[i].identity_size == fresh->identity_size &&
		    strcmp(saved[i].path, path) == 0 &&
		    memcmp(saved[i].identity, fresh->identity, fresh->identity_size) == 0)
			return &saved[i];
	return NULL;
}

/* Keeps fresh (its identity taken over) as a new module with zero counts;
   NULL with errno set, and fresh's identity freed, when it cannot. */
static struct saved_module *keep_saved(struct saved_module *fresh, const char *path)
{
	if (saved_count < SAVED_MAX) {
		fresh->path = strdup(path);
		fresh->counts = calloc(fresh->site_count ? fresh->site_count : 1, sizeof(*fresh->counts));
		if (fresh->path && fresh->counts) {
			saved[saved_count] = *fresh;
			return &saved[saved_count++];
		}
		free(fresh->path);
		free(fresh->counts);
	}
	free(fresh->identity);
	errno = ENOMEM;
	return NULL;
}

/* Adds the counts of module m to those kept of the same module (same path
   and site table), or keeps them as a new one; 0, or -1 with errno set
   when they cannot be kept.  Called with modules_lock held. */
static int save_module(const struct module *m)
{
	struct saved_module fresh, *kept;
	size_t i = 0, k;

	if (describe_module(m, &fresh) < 0)
		return -1;
	kept = find_saved(&fresh, m->path);
	if (kept)
		free(fresh.identity);
	else if (!(kept = keep_saved(&fresh, m->path)))
		return -1;
	for (k = 0; k < module_sites(m); k++) {
		const struct likely_check_site *s = module_site(m, k);
		unsigned long long *counts;

		if (!site_usable(s))
			continue;
		counts = kept->counts[i++];
		counts[0] = add_saturating(counts[0], __atomic_load_n(&s->counts[1], __ATOMIC_RELAXED));
		counts[1] = add_saturating(counts[1], __atomic_load_n(&s->counts[0], __ATOMIC_RELAXED));
		counts[2] = add_saturating(counts[2], __atomic_load_n(&s->counts[2], __ATOMIC_RELAXED));
	}
	return 0;
}

void likely_check_unregister(struct likely_check_site **start)
{
	int i;

	pthread_mutex_lock(&modules_lock);
	for (i = 0; i < module_count; i++)
		if (modules[i].start == start)
			break;
	if (i < module_count) {
		if (save_module(&modules[i]) < 0)
			complain("cannot hold the counts of an unloaded module", errno);
		drop_module(i);
	}
	pthread_mutex_unlock(&modules_lock);
}

void likely_check_unregister_at(const void *address)
{
	static char path[PATH_MAX];
	struct module_search search;
	int i;

	pthread_mutex_lock(&modules_lock);
	search.address = (uintptr_t)address;
	search.base = 0;
	search.path = path;
	strcpy(path, "?");
	dl_iterate_phdr(find_module, &search);
	for (i = 0; i < module_count; i++)
		if (modules[i].base == search.base && !strcmp(modules[i].path, path))
			break;
	if (i < module_count) {
		if (save_module(&modules[i]) < 0)
			complain("cannot hold the counts of an unloaded module", errno);
		drop_module(i);
	}
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

/* Where the counts go: $LIKELY_CHECK_DIR or ".", made absolute when the
   runtime is loaded, so that a program that changes directory writes where
   it was asked to. */
static char output_dir[PATH_MAX];

/* Sets output_dir from the environment and the working directory. */
static void pin_output_dir(void)
{
	const char *dir = secure_getenv("LIKELY_CHECK_DIR");
	char cwd[PATH_MAX];

	if (!dir || !*dir)
		dir = ".";
	if (dir[0] != '/' && getcwd(cwd, sizeof(cwd))) {
		if (strcmp(dir, ".") == 0)
			snprintf(output_dir, sizeof(output_dir), "%s", cwd);
		else if ((size_t)snprintf(output_dir, sizeof(output_dir), "%s/%s", cwd, dir) >=
			 sizeof(output_dir))
			snprintf(output_dir, sizeof(output_dir), "%s", dir);
	} else {
		snprintf(output_dir, sizeof(output_dir), "%s", dir);
	}
}

__attribute__((constructor)) static void likely_check_init(void)
{
	int saved_errno = errno;

	pin_output_dir();
	errno = saved_errno;
}

/* 32 bits that another process will not draw: the kernel's random
   numbers, else the clock, the pid and an address. */
static uint32_t random_suffix(void)
{
	static unsigned int calls;
	uint32_t value = 0;
	struct timespec ts;

	if (syscall(SYS_getrandom, &value, sizeof(value), 1 /* GRND_NONBLOCK */) == sizeof(value))
		return value;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint32_t)(ts.tv_nsec ^ ts.tv_sec ^ ((uint32_t)getpid() << 16) ^
			  (uint32_t)(uintptr_t)&value ^ ++calls * 2654435761u);
}

/* Creates the temporary whose name template ends in XXXXXX (replaced by
   random letters) with O_EXCL and mode 0666, so that the umask gives the
   file its mode as it does to the program's own files (mkstemp's 0600
   ignored it); an fd, or -1 with errno set. */
static int create_temporary(char *template)
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char *x = template + strlen(template) - 6;
	int attempt, i, fd;

	for (attempt = 0; attempt < 64; attempt++) {
		uint32_t r = random_suffix();

		for (i = 0; i < 6; i++, r /= 62)
			x[i] = letters[r % 62];
		fd = open(template, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

/* Gives the complete file at temporary a name of its own in dir,
   likely-check.PID.SUFFIX, into path: a link made only when the name is
   free (another process's file is never replaced), else, on a file system
   without links, the name claimed with O_EXCL and the file renamed onto
   it.  0, or -1 with errno set (temporary is left to the caller). */
static int publish(const char *temporary, const char *dir, char *path, size_t size)
{
	int attempt, fd, err;

	for (attempt = 0; attempt < 64; attempt++) {
		snprintf(path, size, "%s/likely-check.%ld.%08x", dir, (long)getpid(),
			 (unsigned int)random_suffix());
		if (link(temporary, path) == 0) {
			unlink(temporary);
			return 0;
		}
		if (errno == EEXIST)
			continue;
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0) {
			if (errno == EEXIST)
				continue;
			return -1;
		}
		close(fd);
		if (rename(temporary, path) == 0)
			return 0;
		err = errno;
		unlink(path);
		errno = err;
		return -1;
	}
	errno = EEXIST;
	return -1;
}

__attribute__((destructor)) static void likely_check_write(void)
{
	char path[PATH_MAX + 64], tmp[PATH_MAX + 64];
	char *data = NULL;
	size_t size = 0;
	FILE *f;
	int fd, i, saved_errno = errno;

	if (module_count == 0 && saved_count == 0)
		return;
	if (!output_dir[0])
		pin_output_dir();
	snprintf(tmp, sizeof(tmp), "%s/.likely-check.%ld.tmpXXXXXX", output_dir, (long)getpid());
	f = open_memstream(&data, &size);
	if (!f) {
		complain("cannot hold the counts", errno);
		goto out;
	}
	fputs("likely-check 1\n", f);
	pthread_mutex_lock(&modules_lock);
	/* a module still loaded joins the counts of its earlier loads */
	for (i = 0; i < module_count; i++)
		if (save_module(&modules[i]) < 0)
			write_module(f, &modules[i]);
	while (module_count > 0)
		drop_module(module_count - 1);
	for (i = 0; i < (int)saved_count; i++)
		write_saved(f, &saved[i]);
	pthread_mutex_unlock(&modules_lock);
	if (fclose(f) != 0) {
		complain("cannot hold the counts", errno);
		goto out;
	}
	snprintf(path, sizeof(path), "%s: cannot write the counts", output_dir);
	fd = create_temporary(tmp);
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
	if (publish(tmp, output_dir, path, sizeof(path)) < 0) {
		int err = errno;

		snprintf(path, sizeof(path), "%s: cannot write the counts", output_dir);
		complain(path, err);
		unlink(tmp);
	}
out:
	free(data);
	errno = saved_errno;
}
