# likely-check: the report CLI, the counting header and its runtime.
LIKELY_CHECK_OBJS = likely-check/main.o likely-check/sites.o likely-check/report.o \
	likely-check/profile.o likely-check/scan.o likely-check/compare.o likely-check/gimple.o \
	likely-check/arcs.o
PROGS += likely-check/likely-check likely-check/liblikely-check.so
BIN_PROGS += likely-check/likely-check
MAN1 += likely-check/likely-check.1
OBJS += $(LIKELY_CHECK_OBJS)
LIBDIR_LINKOPT ?= $(PREFIX)/lib/linkopt

likely-check/likely-check: $(LIKELY_CHECK_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_JSON)

# The runtime is loaded into other people's programs (LD_PRELOAD too), so it
# is built without the sanitizers even under SAN=1: an ASan runtime cannot be
# preloaded into a program that was not built with it.
likely-check/liblikely-check.so: likely-check/runtime.c likely-check/likely-check.h .flags
	$(CC) -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -fPIC -shared -fvisibility=default \
		-o $@ likely-check/runtime.c -lpthread

install::
	install -d '$(DESTDIR)$(LIBDIR_LINKOPT)'
	install -m 644 likely-check/likely-check.h '$(DESTDIR)$(LIBDIR_LINKOPT)/'
	install -m 755 likely-check/liblikely-check.so '$(DESTDIR)$(LIBDIR_LINKOPT)/'

bench-likely-check: all
	TOP='$(CURDIR)' bench/likely-check/run

.PHONY: bench-likely-check
