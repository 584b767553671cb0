/* cygtrace runtime: __cyg_profile_func_enter/exit for programs built with
   -finstrument-functions.  Records the first entry of every function at
   native speed and writes it, with the module table, to
   $CYGTRACE_DIR/cygtrace.<pid>.<suffix> (the folder as it was at start-up;
   suffix random, the name taken only when no file has it, so that two
   processes never share one, not with the same pid: PID namespaces, a pid
   reused).  Output format: see cygtrace(1).

   This code runs inside someone else's program: it never exits, aborts,
   allocates with malloc, takes a lock or prints to stdout; it reports a
   problem on stderr once and carries on.  Nothing here is instrumented. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HIDDEN __attribute__((no_instrument_function))
#define PUBLIC __attribute__((visibility("default"), no_instrument_function))

/* Functions seen: open addressing, inserted with compare-and-swap. */
#define TABLE_BITS 18
#define TABLE_SIZE (1u << TABLE_BITS)
#define RECORD_CAPACITY (TABLE_SIZE / 2)
#define EDGE_BITS 16
#define EDGE_SIZE (1u << EDGE_BITS)
#define MODULE_CAPACITY 512
#define PATH_POOL (256 * 1024)

/* Claimed by one thread; function is stored last, with release, so that a
   writer reading it (acquire) at a fork or at exit while other threads
   record sees the whole record or skips it. */
struct record {
	uint64_t time_ns;
	uintptr_t call_site;
	_Atomic uintptr_t function;
	uint32_t tid;
};

struct edge {
	_Atomic uintptr_t call_site, function;
	_Atomic uint64_t count;
};

struct module {
	const char *path;
	uintptr_t base;
	char build_id[41];
	int segment_count;
	uintptr_t start[8], end[8];
};

static _Atomic uintptr_t seen[TABLE_SIZE];
static struct record records[RECORD_CAPACITY];
static _Atomic uint32_t record_count;
static struct edge edges[EDGE_SIZE];
static _Atomic uint64_t edge_calls;
static struct module modules[MODULE_CAPACITY];
/* Raised (release) only after its entry is filled: readers take no lock. */
static _Atomic int module_count;
static char path_pool[PATH_POOL];
static size_t path_pool_used;
static _Atomic int module_lock; /* a flag, tried, never waited on */

static _Atomic int stopped;       /* recording over */
static _Atomic int stop_requested; /* by a signal */
static int edges_enabled;
static unsigned edge_sample = 1;
static uint64_t stop_after_ns;
static uintptr_t stop_function;
static char stop_function_name[256];
static uint64_t start_ns;
static _Atomic int reported;
static _Atomic pid_t written_pid[4]; /* per reason: the pid that wrote it */
/* The folder the trace goes to, made absolute at start-up (a program that
   changes directory writes where it was asked to), and the name this
   process's trace took at its first write (a later write replaces it);
   trace_pid tells a fork child, which takes a name of its own. */
static char trace_dir[PATH_MAX];
static char trace_path[PATH_MAX + 64];
static pid_t trace_pid;

static __thread uint32_t thread_id __attribute__((tls_model("initial-exec")));

HIDDEN static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* One message on stderr, the first time anything goes wrong. */
HIDDEN static void report_once(const char *what, const char *detail)
{
	char buf[512];
	int n;

	if (atomic_exchange(&reported, 1))
		return;
	n = snprintf(buf, sizeof(buf), "cygtrace: %s: %s; the program goes on without it\n", what, detail);
	if (n > 0 && write(2, buf, n < (int)sizeof(buf) ? n : (int)sizeof(buf) - 1) < 0)
		return;
}

HIDDEN static uint32_t hash_address(uintptr_t a)
{
	uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> (64 - TABLE_BITS));
}

/* Module table from the dynamic loader, refreshed when an address falls
   outside every module known (after a dlopen); modules are never removed,
   so a dlclose'd module's records still resolve offline. */
HIDDEN static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
	struct module *m;
	const char *name = info->dlpi_name;
	char exe[PATH_MAX];
	size_t len;
	int i, count = atomic_load_explicit(&module_count, memory_order_relaxed);

	(void)size;
	(void)data;
	for (i = 0; i < count; i++)
		if (modules[i].base == info->dlpi_addr && modules[i].path && !strcmp(modules[i].path, name[0] ? name : modules[i].path))
			return 0;
	if (count >= MODULE_CAPACITY)
		return 1;
	if (!name[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = '\0';
		name = exe;
	}
	len = strlen(name) + 1;
	if (path_pool_used + len > PATH_POOL)
		return 1;
	m = &modules[count];
	memset(m, 0, sizeof(*m));
	memcpy(path_pool + path_pool_used, name, len);
	m->path = path_pool + path_pool_used;
	path_pool_used += len;
	m->base = info->dlpi_addr;
	strcpy(m->build_id, "none");
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && m->segment_count < 8) {
			m->start[m->segment_count] = info->dlpi_addr + ph->p_vaddr;
			m->end[m->segment_count] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
			m->segment_count++;
		} else if (ph->p_type == PT_NOTE) {
			const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
			size_t off = 0;

			while (off + 12 <= ph->p_memsz) {
				uint32_t namesz, descsz, type, k;

				memcpy(&namesz, p + off, 4);
				memcpy(&descsz, p + off + 4, 4);
				memcpy(&type, p + off + 8, 4);
				off += 12;
				if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + off, "GNU", 4) && descsz <= 20)
					for (k = 0; k < descsz; k++)
						snprintf(m->build_id + 2 * k, 3, "%02x", p[off + 4 + k]);
				off += ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
			}
		}
	}
	atomic_store_explicit(&module_count, count + 1, memory_order_release);
	return 0;
}

HIDDEN static int module_known(uintptr_t a)
{
	int i, k, count = atomic_load_explicit(&module_count, memory_order_acquire);

	for (i = 0; i < count; i++)
		for (k = 0; k < modules[i].segment_count; k++)
			if (a >= modules[i].start[k] && a < modules[i].end[k])
				return 1;
	return 0;
}

HIDDEN static void refresh_modules(uintptr_t a)
{
	if (module_known(a) || atomic_exchange(&module_lock, 1))
		return;
	dl_iterate_phdr(add_module, NULL);
	atomic_store(&module_lock, 0);
}

/* Writing: raw write(2) in chunks from a stack buffer. */
struct writer {
	int fd;
	int failed;
	size_t used;
	char buf[8192];
};

HIDDEN static void writer_flush(struct writer *w)
{
	size_t done = 0;

	while (!w->failed && done < w->used) {
		ssize_t n = write(w->fd, w->buf + done, w->used - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->failed = errno ? errno : EIO;
			break;
		}
		done += (size_t)n;
	}
	w->used = 0;
}

HIDDEN static void writer_printf(struct writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
HIDDEN static void writer_printf(struct writer *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->used + 600 > sizeof(w->buf))
		writer_flush(w);
	va_start(ap, fmt);
	n = vsnprintf(w->buf + w->used, sizeof(w->buf) - w->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		w->used += (size_t)n < sizeof(w->buf) - w->used ? (size_t)n : sizeof(w->buf) - w->used - 1;
}

HIDDEN static void writer_put(struct writer *w, const char *text, size_t len)
{
	if (w->used + len > sizeof(w->buf))
		writer_flush(w);
	if (len > sizeof(w->buf))
		len = sizeof(w->buf);
	memcpy(w->buf + w->used, text, len);
	w->used += len;
}

HIDDEN static int needs_quoting(unsigned char c)
{
	return c <= ' ' || c == 0x7f || c == '"' || c == '\\';
}

/* Writes text as a field of the trace: bare when it can be, else in double
   quotes with C escapes (the form lib/trace.c's trace_quote writes). */
HIDDEN static void writer_field(struct writer *w, const char *text)
{
	const unsigned char *p;
	int bare = *text != '\0';
	char escape[5];

	for (p = (const unsigned char *)text; *p && bare; p++)
		bare = !needs_quoting(*p);
	if (bare) {
		writer_put(w, text, strlen(text));
		return;
	}
	writer_put(w, "\"", 1);
	for (p = (const unsigned char *)text; *p; p++) {
		if (!needs_quoting(*p) || *p == ' ') {
			writer_put(w, (const char *)p, 1);
		} else if (*p == '"' || *p == '\\' || *p == '\n' || *p == '\t' || *p == '\r') {
			escape[0] = '\\';
			escape[1] = *p == '\n' ? 'n' : *p == '\t' ? 't' : *p == '\r' ? 'r' : (char)*p;
			writer_put(w, escape, 2);
		} else {
			snprintf(escape, sizeof(escape), "\\x%02x", *p);
			writer_put(w, escape, 4);
		}
	}
	writer_put(w, "\"", 1);
}

/* "# command: ARG...", each a field, from the first 1 KiB of the command line. */
HIDDEN static void write_command(struct writer *w)
{
	char cmdline[1024];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n, k;

	if (fd < 0)
		return;
	n = read(fd, cmdline, sizeof(cmdline) - 1);
	close(fd);
	if (n <= 0)
		return;
	cmdline[n] = '\0';
	writer_printf(w, "# command:");
	for (k = 0; k < n; k += strlen(cmdline + k) + 1) {
		writer_put(w, " ", 1);
		writer_field(w, cmdline + k);
	}
	writer_put(w, "\n", 1);
}

/* Sets trace_dir from CYGTRACE_DIR (or ".") and the working directory. */
HIDDEN static void pin_trace_dir(void)
{
	const char *dir = secure_getenv("CYGTRACE_DIR");
	char cwd[PATH_MAX];

	if (!dir || !*dir)
		dir = ".";
	if (dir[0] != '/' && getcwd(cwd, sizeof(cwd))) {
		if (!strcmp(dir, "."))
			snprintf(trace_dir, sizeof(trace_dir), "%s", cwd);
		else if ((size_t)snprintf(trace_dir, sizeof(trace_dir), "%s/%s", cwd, dir) >= sizeof(trace_dir))
			snprintf(trace_dir, sizeof(trace_dir), "%s", dir);
	} else {
		snprintf(trace_dir, sizeof(trace_dir), "%s", dir);
	}
}

/* 32 bits that another process will not draw: the kernel's random
   numbers, else the clock, the pid and an address. */
HIDDEN static uint32_t random_suffix(void)
{
	static _Atomic unsigned int calls;
	uint32_t value = 0;

	if (syscall(SYS_getrandom, &value, sizeof(value), 1 /* GRND_NONBLOCK */) == sizeof(value))
		return value;
	return (uint32_t)(now_ns() ^ ((uint64_t)getpid() << 16) ^ (uintptr_t)&value ^
			  (atomic_fetch_add(&calls, 1) + 1) * 2654435761u);
}

/* Creates the temporary whose name template ends in XXXXXX (replaced by
   random letters) with O_EXCL and mode 0666, so that the umask gives the
   trace its mode as it does to the program's own files (mkstemp's 0600
   ignored it); an fd, or -1 with errno set. */
HIDDEN static int create_temporary(char *template)
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

/* Gives the complete trace at temporary its name: the one this process
   took before (replaced), else a new cygtrace.PID.SUFFIX in trace_dir,
   linked only when the name is free (another process's trace is never
   replaced), or on a file system without links claimed with O_EXCL and
   renamed onto.  0, or -1 with errno set (temporary is left). */
HIDDEN static int publish(const char *temporary, pid_t pid)
{
	char path[sizeof(trace_path)];
	int attempt, fd, err;

	if (trace_pid == pid && trace_path[0])
		return rename(temporary, trace_path);
	for (attempt = 0; attempt < 64; attempt++) {
		snprintf(path, sizeof(path), "%s/cygtrace.%d.%08x", trace_dir, (int)pid,
			 (unsigned int)random_suffix());
		if (link(temporary, path) == 0) {
			unlink(temporary);
		} else if (errno == EEXIST) {
			continue;
		} else {
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
			if (fd < 0 && errno == EEXIST)
				continue;
			if (fd < 0)
				return -1;
			close(fd);
			if (rename(temporary, path) < 0) {
				err = errno;
				unlink(path);
				errno = err;
				return -1;
			}
		}
		memcpy(trace_path, path, sizeof(path));
		trace_pid = pid;
		return 0;
	}
	errno = EEXIST;
	return -1;
}

enum reason { REASON_EXIT, REASON_STOP, REASON_FORK };
static const char *const reason_names[] = { "exit", "stop", "fork" };

HIDDEN static void write_trace(enum reason reason)
{
	char what[PATH_MAX + 32], temporary[PATH_MAX + 64];
	struct writer w;
	pid_t pid = getpid();
	uint32_t count = atomic_load(&record_count), i;
	uint64_t start = __atomic_load_n(&start_ns, __ATOMIC_RELAXED);
	int k, modules_written, saved_errno = errno;

	if (atomic_exchange(&written_pid[reason], pid) == pid)
		return;
	if (count > RECORD_CAPACITY)
		count = RECORD_CAPACITY;
	if (!trace_dir[0])
		pin_trace_dir();
	snprintf(what, sizeof(what), "%s: cannot write the trace", trace_dir);
	snprintf(temporary, sizeof(temporary), "%s/.cygtrace.%d.tmpXXXXXX", trace_dir, (int)pid);
	w.fd = create_temporary(temporary);
	w.failed = 0;
	w.used = 0;
	if (w.fd < 0) {
		report_once(what, strerror(errno));
		errno = saved_errno;
		return;
	}
	refresh_modules(0);
	writer_printf(&w, "# cygtrace 2 (linkopt " LINKOPT_VERSION ")\n# pid: %d\n# reason: %s\n", (int)pid, reason_names[reason]);
	write_command(&w);
	if (count >= RECORD_CAPACITY)
		writer_printf(&w, "# full: the record buffer holds %u functions; those first entered later are not "
			      "recorded\n", (unsigned)RECORD_CAPACITY);
	writer_printf(&w, "# time: CLOCK_MONOTONIC nanoseconds since the process's first record\n");
	writer_printf(&w, "# columns: SEQ TIME TID FUNCTION CALL-SITE\n");
	modules_written = atomic_load_explicit(&module_count, memory_order_acquire);
	for (k = 0; k < modules_written; k++) {
		int s;

		writer_printf(&w, "# object ");
		writer_field(&w, modules[k].path);
		writer_printf(&w, " build-id %s base 0x%lx\n", modules[k].build_id, (unsigned long)modules[k].base);
		for (s = 0; s < modules[k].segment_count; s++) {
			writer_printf(&w, "# segment ");
			writer_field(&w, modules[k].path);
			writer_printf(&w, " 0x%lx-0x%lx\n", (unsigned long)modules[k].start[s],
				      (unsigned long)modules[k].end[s]);
		}
	}
	for (i = 0; i < count; i++) {
		const struct record *r = &records[i];
		uintptr_t function = atomic_load_explicit(&r->function, memory_order_acquire);

		if (!function) /* claimed but not yet filled by another thread */
			continue;
		writer_printf(&w, "%u %llu %u 0x%lx 0x%lx\n", i + 1, (unsigned long long)(r->time_ns - start), r->tid,
			      (unsigned long)function, (unsigned long)r->call_site);
	}
	if (edges_enabled) {
		writer_printf(&w, "# edges: CALL-SITE FUNCTION COUNT (one call in %u counted)\n", edge_sample);
		for (i = 0; i < EDGE_SIZE; i++) {
			uintptr_t f = atomic_load_explicit(&edges[i].function, memory_order_relaxed);

			if (f)
				writer_printf(&w, "E 0x%lx 0x%lx %llu\n",
					      (unsigned long)atomic_load_explicit(&edges[i].call_site, memory_order_relaxed),
					      (unsigned long)f,
					      (unsigned long long)atomic_load_explicit(&edges[i].count, memory_order_relaxed));
		}
	}
	writer_printf(&w, "# end\n");
	writer_flush(&w);
	if (close(w.fd) < 0 && !w.failed)
		w.failed = errno;
	if (w.failed) {
		unlink(temporary);
		report_once(what, strerror(w.failed));
	} else if (publish(temporary, pid) < 0) {
		report_once(what, strerror(errno));
		unlink(temporary);
	}
	errno = saved_errno;
}

HIDDEN static void stop_recording(void)
{
	if (atomic_exchange(&stopped, 1))
		return;
	write_trace(REASON_STOP);
}

HIDDEN static void first_entry(uintptr_t fn, uintptr_t site)
{
	uint32_t index;
	struct record *r;
	uint64_t t = now_ns(), start = __atomic_load_n(&start_ns, __ATOMIC_RELAXED);

	/* Instrumented code may run before any constructor: the clock starts
	   at the first record. */
	if (!start) {
		uint64_t unset = 0;

		start = __atomic_compare_exchange_n(&start_ns, &unset, t, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED) ? t : unset;
	}

	if (atomic_load_explicit(&stop_requested, memory_order_relaxed) ||
	    (stop_after_ns && t - start >= stop_after_ns) || (stop_function && fn == stop_function)) {
		stop_recording();
		return;
	}
	index = atomic_fetch_add_explicit(&record_count, 1, memory_order_relaxed);
	if (index >= RECORD_CAPACITY) {
		report_once("record buffer", "full: functions entered later are not recorded");
		return;
	}
	if (!thread_id)
		thread_id = (uint32_t)syscall(SYS_gettid);
	r = &records[index];
	r->time_ns = t;
	r->tid = thread_id;
	r->call_site = site;
	atomic_store_explicit(&r->function, fn, memory_order_release);
	refresh_modules(fn);
}

HIDDEN static void count_edge(uintptr_t fn, uintptr_t site)
{
	uint64_t n = atomic_fetch_add_explicit(&edge_calls, 1, memory_order_relaxed);
	uint32_t h, probe;

	if (edge_sample > 1 && n % edge_sample)
		return;
	h = (hash_address(site) ^ hash_address(fn)) & (EDGE_SIZE - 1);
	for (probe = 0; probe < 64; probe++, h = (h + 1) & (EDGE_SIZE - 1)) {
		struct edge *e = &edges[h];
		uintptr_t f = atomic_load_explicit(&e->function, memory_order_relaxed);

		if (!f) {
			uintptr_t expected = 0;

			if (!atomic_compare_exchange_strong(&e->function, &expected, fn)) {
				if (expected != fn)
					continue;
			} else {
				atomic_store_explicit(&e->call_site, site, memory_order_relaxed);
			}
			f = fn;
		}
		if (f == fn && atomic_load_explicit(&e->call_site, memory_order_relaxed) == site) {
			atomic_fetch_add_explicit(&e->count, 1, memory_order_relaxed);
			return;
		}
	}
}

PUBLIC void __cyg_profile_func_enter(void *function, void *call_site)
{
	uintptr_t fn = (uintptr_t)function;
	uint32_t h = hash_address(fn), probe;

	if (__builtin_expect(edges_enabled, 0) && !atomic_load_explicit(&stopped, memory_order_relaxed))
		count_edge(fn, (uintptr_t)call_site);
	/* Every slot is probed at most once: a full table ends the walk. */
	for (probe = 0; probe < TABLE_SIZE; probe++) {
		uintptr_t v = atomic_load_explicit(&seen[h], memory_order_relaxed);

		if (__builtin_expect(v == fn, 1))
			return;
		if (v == 0) {
			uintptr_t expected = 0;

			if (atomic_load_explicit(&stopped, memory_order_relaxed))
				return;
			/* Once the record buffer is full nothing new is kept, so the
			   table stays at most half full and every walk short. */
			if (atomic_load_explicit(&record_count, memory_order_relaxed) >= RECORD_CAPACITY) {
				report_once("record buffer", "full: functions entered later are not recorded");
				return;
			}
			if (atomic_compare_exchange_strong_explicit(&seen[h], &expected, fn, memory_order_relaxed,
								    memory_order_relaxed)) {
				first_entry(fn, (uintptr_t)call_site);
				return;
			}
			if (expected == fn)
				return;
			continue;
		}
		h = (h + 1) & (TABLE_SIZE - 1);
	}
}

PUBLIC void __cyg_profile_func_exit(void *function, void *call_site)
{
	(void)function;
	(void)call_site;
}

HIDDEN static void on_stop_signal(int signo)
{
	(void)signo;
	atomic_store(&stop_requested, 1);
}

/* A function named by CYGTRACE_STOP: searched in the symbol tables of the
   executable and the libraries loaded at start-up, read from their files. */
HIDDEN static int find_stop_function(struct dl_phdr_info *info, size_t size, void *data)
{
	char exe[PATH_MAX];
	const char *name = info->dlpi_name;
	int fd;
	ElfW(Ehdr) eh;
	ElfW(Shdr) sh[256];
	int i;

	(void)size;
	(void)data;
	if (!name[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[n > 0 ? n : 0] = '\0';
		name = exe;
	}
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_shnum > 256 ||
	    eh.e_shentsize != sizeof(ElfW(Shdr)) ||
	    pread(fd, sh, eh.e_shnum * sizeof(ElfW(Shdr)), eh.e_shoff) != (ssize_t)(eh.e_shnum * sizeof(ElfW(Shdr)))) {
		close(fd);
		return 0;
	}
	for (i = 0; i < eh.e_shnum && !stop_function; i++) {
		ElfW(Sym) syms[256];
		char names[4096];
		size_t off;

		if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) || sh[i].sh_link >= eh.e_shnum)
			continue;
		for (off = 0; off < sh[i].sh_size && !stop_function; off += sizeof(syms)) {
			ssize_t got = pread(fd, syms, sizeof(syms), sh[i].sh_offset + off);
			size_t k, count;

			if (got <= 0)
				break;
			if ((size_t)got > sh[i].sh_size - off)
				got = sh[i].sh_size - off;
			count = (size_t)got / sizeof(ElfW(Sym));
			for (k = 0; k < count; k++) {
				size_t len = strlen(stop_function_name) + 1;

				if (ELF64_ST_TYPE(syms[k].st_info) != STT_FUNC || !syms[k].st_value ||
				    syms[k].st_name >= sh[sh[i].sh_link].sh_size)
					continue;
				if (pread(fd, names, len, sh[sh[i].sh_link].sh_offset + syms[k].st_name) == (ssize_t)len &&
				    !memcmp(names, stop_function_name, len)) {
					stop_function = info->dlpi_addr + syms[k].st_value;
					break;
				}
			}
		}
	}
	close(fd);
	return stop_function != 0;
}

HIDDEN static void parse_stop(const char *s)
{
	char *end;
	unsigned long v;
	int signo = 0;

	if (!s || !*s)
		return;
	if (*s >= '0' && *s <= '9') {
		errno = 0;
		v = strtoul(s, &end, 10);
		/* at most a year: more would overflow the clock's nanoseconds */
		if (strcmp(end, "ms") || errno || v < 1 || v > 366ul * 24 * 3600 * 1000)
			report_once("CYGTRACE_STOP", "a time must be 1ms to 31622400000ms; recording does not stop");
		else
			stop_after_ns = (uint64_t)v * 1000000u;
		return;
	}
	if (*s == '-' || *s == '+') {
		report_once("CYGTRACE_STOP", "a time must be 1ms to 31622400000ms; recording does not stop");
		return;
	}
	if (!strncmp(s, "SIG", 3) || !strncmp(s, "sig", 3)) {
		if (!strcasecmp(s + 3, "USR1"))
			signo = SIGUSR1;
		else if (!strcasecmp(s + 3, "USR2"))
			signo = SIGUSR2;
		else if (!strcasecmp(s + 3, "HUP"))
			signo = SIGHUP;
		else if (!strcasecmp(s + 3, "PROF"))
			signo = SIGPROF;
		if (signo) {
			struct sigaction sa;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_stop_signal;
			sa.sa_flags = SA_RESTART;
			sigemptyset(&sa.sa_mask);
			sigaction(signo, &sa, NULL);
		} else {
			report_once("CYGTRACE_STOP", "unknown signal (SIGUSR1, SIGUSR2, SIGHUP or SIGPROF)");
		}
		return;
	}
	snprintf(stop_function_name, sizeof(stop_function_name), "%s", s);
	dl_iterate_phdr(find_stop_function, NULL);
	if (!stop_function)
		report_once("CYGTRACE_STOP", "no function of that name in the program or its libraries");
}

HIDDEN static void at_exit(void)
{
	if (!atomic_load(&stopped))
		write_trace(REASON_EXIT);
}

HIDDEN static void after_fork_parent(void)
{
	if (!atomic_load(&stopped))
		write_trace(REASON_FORK);
}

HIDDEN static void after_fork_child(void)
{
	/* The child keeps what its parent recorded: its file, at its own exit,
	   holds every function first entered in its ancestry and by itself. */
	thread_id = 0;
	/* a thread of the parent may have held it at the fork: the child has
	   that thread no more, and would never learn of a module again */
	atomic_store(&module_lock, 0);
}

__attribute__((constructor(101), no_instrument_function)) static void cygtrace_init(void)
{
	int saved_errno = errno;
	const char *edges_env = secure_getenv("CYGTRACE_EDGES");

	if (edges_env && *edges_env && strcmp(edges_env, "0")) {
		char *end;
		unsigned long n;

		errno = 0;
		n = *edges_env >= '0' && *edges_env <= '9' ? strtoul(edges_env, &end, 10) : 0;
		if (!n || *end || errno || n > 1000000000ul) {
			report_once("CYGTRACE_EDGES", "must be 0 (off) or N, one call in N counted, N from 1 to "
				    "1000000000; no edges are counted");
		} else {
			edges_enabled = 1;
			edge_sample = (unsigned)n;
		}
	}
	pin_trace_dir();
	parse_stop(secure_getenv("CYGTRACE_STOP"));
	pthread_atfork(NULL, after_fork_parent, after_fork_child);
	atexit(at_exit);
	errno = saved_errno;
}

__attribute__((destructor, no_instrument_function)) static void cygtrace_fini(void)
{
	at_exit();
}
