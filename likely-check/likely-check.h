/* likely-check.h: counts, per __builtin_expect site, how often the hint was
   right.  Pass it with -include (see `likely-check cflags`): it redefines
   __builtin_expect itself, so every likely/unlikely/LIKELY/expect macro of a
   project is counted without editing it.

   Each site is a static struct likely_check_site; a pointer to it goes into
   the section "likely_check", which the linker bounds with
   __start_likely_check/__stop_likely_check in every executable and DSO.  An
   array of pointers, not of structs, so that alignment padding between the
   objects of different files cannot shift the walk.  A constructor in each
   file hands its module's array to the runtime (liblikely-check.so), through
   a weak reference: without the runtime the program runs as before, counts
   and all, and writes nothing; a destructor hands the counts over before
   the module is unloaded.  Counters are relaxed atomics: threads never
   lose counts.  The hint itself still reaches the compiler. */
#ifndef LIKELY_CHECK_H
#define LIKELY_CHECK_H
/* -include reaches assembly files run through the preprocessor (.S) too:
   they get nothing. */
#ifndef __ASSEMBLER__
/* The sites of glibc's extern inline functions (putc_unlocked...) would
   draw "static but declared in inline function" on every file: a system
   header keeps that quiet, and diagnostics on the user's own tokens stay. */
#pragma GCC system_header

/* In C++ the runtime's functions keep their C names: a mangled weak
   reference would never resolve, and nothing would be counted. */
#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever struct likely_check_site changes. */
#define LIKELY_CHECK_ABI 1

/* One __builtin_expect site; the counters are the only written fields. */
struct likely_check_site {
	const char *file;
	const char *function;
	const char *expression;
	long expect;
	unsigned int line;
	unsigned int abi;
	/* [0] value != expect, [1] value == expect, [2] value known at compile time */
	unsigned long long counts[3];
};

/* Registers one module's sites [start, stop); called by every file's
   constructor, once per module is enough, repeats are ignored. */
void likely_check_register(struct likely_check_site **start, struct likely_check_site **stop)
	__attribute__((weak));

/* Registers one site of the module that holds it, once (repeats and the
   sites of its table are ignored): C++ inline and template functions keep
   their static sites in COMDAT sections of their own, where gcc ignores
   the section attribute, so each registers itself when it first runs. */
void likely_check_register_site(struct likely_check_site *site) __attribute__((weak));

/* Copies the counts of the module holding address out before its code
   goes away (dlclose, exit) and forgets it; unknown modules are ignored. */
void likely_check_unregister_at(const void *address) __attribute__((weak));

#ifndef LIKELY_CHECK_RUNTIME
/* Copies one module's counts out before its code goes away (dlclose, exit)
   and forgets it; unknown modules are ignored. */
void likely_check_unregister(struct likely_check_site **start)
	__attribute__((weak));

extern struct likely_check_site *__start_likely_check[] __attribute__((weak, visibility("hidden")));
extern struct likely_check_site *__stop_likely_check[] __attribute__((weak, visibility("hidden")));

__attribute__((constructor, used)) static void likely_check_register_module_(void)
{
	if (likely_check_register && __start_likely_check)
		likely_check_register(__start_likely_check, __stop_likely_check);
}

__attribute__((destructor, used)) static void likely_check_unregister_module_(void)
{
#ifdef __cplusplus
	/* a module may hold sites of inline functions alone, and no table */
	if (likely_check_unregister_at) {
		likely_check_unregister_at((const void *)&likely_check_unregister_module_);
		return;
	}
#endif
	if (likely_check_unregister && __start_likely_check)
		likely_check_unregister(__start_likely_check);
}

#ifdef __cplusplus
/* Registers site the first time it runs (see likely_check_register_site). */
#define LIKELY_CHECK_REGISTER_SITE_(site_) do { \
	static char likely_check_registered_; \
	if (!__atomic_load_n(&likely_check_registered_, __ATOMIC_RELAXED)) { \
		__atomic_store_n(&likely_check_registered_, 1, __ATOMIC_RELAXED); \
		if (likely_check_register_site) \
			likely_check_register_site(&(site_)); \
	} } while (0)
#else
#define LIKELY_CHECK_REGISTER_SITE_(site_) ((void)0)
#endif

/* glibc clears __libc_single_threaded before a second thread starts: while
   it is set, a plain (relaxed) load and store cannot lose a count and
   costs far less than a locked add. */
#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#define LIKELY_CHECK_SINGLE_THREADED_FLAG 1
extern char __libc_single_threaded;
#endif
#endif

/* Adds one to *counter without losing counts between threads. */
static __inline__ __attribute__((always_inline)) void
likely_check_count_(unsigned long long *counter)
{
#ifdef LIKELY_CHECK_SINGLE_THREADED_FLAG
	if (__libc_single_threaded) {
		__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
		return;
	}
#endif
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* The inner __builtin_expect is the real one: a macro is not expanded again
   inside its own expansion. */
#define __builtin_expect(likely_check_exp_, likely_check_c_) __extension__ ({ \
	static struct likely_check_site likely_check_site_ = { \
		__FILE__, __func__, #likely_check_exp_, (likely_check_c_), __LINE__, \
		LIKELY_CHECK_ABI, { 0, 0, 0 } }; \
	static struct likely_check_site *likely_check_site_pointer_ \
		__attribute__((used, section("likely_check"))) = &likely_check_site_; \
	long likely_check_value_ = (long)(likely_check_exp_); \
	LIKELY_CHECK_REGISTER_SITE_(likely_check_site_); \
	likely_check_count_(&likely_check_site_.counts[likely_check_value_ == (long)(likely_check_c_)]); \
	if (__builtin_constant_p(likely_check_value_)) \
		likely_check_count_(&likely_check_site_.counts[2]); \
	__builtin_expect(likely_check_value_, (likely_check_c_)); })
#endif

#ifdef __cplusplus
}
#endif
#endif /* __ASSEMBLER__ */
#endif
