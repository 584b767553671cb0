# linkopt: plain GNU make.  make, make check, make demo, make install, make clean.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
LDFLAGS ?=
LDLIBS_ELF = -lelf -lz
WARN = -Wall -Wextra -Wno-sign-compare
ALL_CFLAGS = -std=gnu11 $(WARN) -Ilib $(CFLAGS)
ALL_LDFLAGS = $(LDFLAGS)
ifeq ($(SAN),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ALL_LDFLAGS += -fsanitize=address,undefined
endif

LIB_OBJS = lib/util.o lib/archive.o lib/elfobj.o
DEPORDER_OBJS = deporder/main.o deporder/inputs.o deporder/closure.o \
	deporder/sections.o deporder/order.o deporder/ccdriver.o
PROGS = deporder/deporder

all: $(PROGS)

# Rebuild everything when the compiler or the flags change (SAN=1 and back).
.flags: FORCE
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' > $@

.deps-ok: scripts/need-deps
	@scripts/need-deps '$(CC)' libelf.h=libelf-dev gelf.h=libelf-dev elfutils/libdw.h=libdw-dev
	@touch $@

%.o: %.c .flags .deps-ok
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

deporder/deporder: $(DEPORDER_OBJS) $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)

-include $(LIB_OBJS:.o=.d) $(DEPORDER_OBJS:.o=.d)

check: all
	TOP='$(CURDIR)' tests/run $(TESTS)

demo: all
	TOP='$(CURDIR)' samples/demo

bench-deporder: all
	TOP='$(CURDIR)' bench/deporder/run

install: all
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(PREFIX)/share/man/man1'
	install -m 755 deporder/deporder '$(DESTDIR)$(BINDIR)/deporder'
	install -m 644 deporder/deporder.1 '$(DESTDIR)$(PREFIX)/share/man/man1/deporder.1'

clean:
	rm -f $(PROGS) lib/*.o lib/*.d deporder/*.o deporder/*.d .flags .deps-ok

.PHONY: all check demo bench-deporder install clean FORCE
