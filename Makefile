# linkopt: plain GNU make.  make, make check, make demo, make install, make clean.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
LDFLAGS ?=
LDLIBS_ELF = -lelf -lz
LDLIBS_DW = -ldw
LDLIBS_JSON = -ljson-c
WARN = -Wall -Wextra -Wno-sign-compare -Wno-missing-field-initializers
ALL_CFLAGS = -std=gnu11 $(WARN) -Ilib $(CFLAGS)
ALL_LDFLAGS = $(LDFLAGS)
ifeq ($(SAN),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ALL_LDFLAGS += -fsanitize=address,undefined
endif

LIB_OBJS = lib/util.o lib/cli.o lib/archive.o lib/elfobj.o lib/trace.o lib/ldmap.o lib/ordering.o
LIB_OBJS += lib/proc.o lib/linker.o lib/progress.o lib/coldstart.o lib/readahead.o
DEPORDER_OBJS = deporder/binding.o deporder/main.o deporder/inputs.o deporder/closure.o \
	deporder/sections.o deporder/order.o deporder/ccdriver.o deporder/hot.o deporder/pack.o \
	deporder/evaluate.o deporder/layout.o deporder/placement.o
# Each tool folder may add a build.mk that appends to these and adds its
# own rules, with install:: and clean:: for its files.
PROGS = deporder/deporder
BIN_PROGS = deporder/deporder
MAN1 = deporder/deporder.1
OBJS = $(LIB_OBJS) $(DEPORDER_OBJS) lib/json.o lib/symbolize.o lib/gcda.o

all: build
-include $(sort $(wildcard */build.mk))
build: $(PROGS)

# Rebuild everything when the compiler or the flags change (SAN=1 and back).
.flags: FORCE
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' > $@

.deps-ok: scripts/need-deps
	@scripts/need-deps '$(CC)' libelf.h=libelf-dev gelf.h=libelf-dev elfutils/libdw.h=libdw-dev \
		json-c/json.h=libjson-c-dev valgrind/pub_tool_basics.h=valgrind
	@touch $@

%.o: %.c .flags .deps-ok
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

deporder/deporder: $(DEPORDER_OBJS) linkscripts/libemit.a $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)

-include $(OBJS:.o=.d)

check: all
	TOP='$(CURDIR)' tests/run $(TESTS)

demo: all
	TOP='$(CURDIR)' samples/demo

hostile-matrix: all
	TOP='$(CURDIR)' tests/hostile-matrix

# every build-system test in every cell: linker × with and without -j
buildsys-matrix: all buildsys-deps
	TOP='$(CURDIR)' tests/buildsys-matrix -o tests/buildsys-matrix.log

bench-deporder: all
	TOP='$(CURDIR)' bench/deporder/run

bench-pagein: all
	TOP='$(CURDIR)' bench/pagein/run

bench-coldstart: all
	TOP='$(CURDIR)' bench/coldstart/run

bench-pfstat: all
	TOP='$(CURDIR)' bench/pfstat/run

install:: all
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(PREFIX)/share/man/man1'
	install -m 755 $(BIN_PROGS) '$(DESTDIR)$(BINDIR)/'
	install -m 644 $(MAN1) '$(DESTDIR)$(PREFIX)/share/man/man1/'

clean::
	rm -f $(PROGS) $(OBJS) $(OBJS:.o=.d) .flags .deps-ok

.PHONY: all build check demo hostile-matrix buildsys-matrix bench-deporder bench-pagein bench-coldstart bench-pfstat install clean FORCE
