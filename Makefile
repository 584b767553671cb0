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
# the one place the version is written
VERSION := $(shell cat VERSION)
VERSION_DEF = -DLINKOPT_VERSION='"$(VERSION)"'
ALL_CFLAGS = -std=gnu11 $(WARN) -Ilib $(VERSION_DEF) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDFLAGS)
ifeq ($(SAN),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ALL_LDFLAGS += -fsanitize=address,undefined
endif

# lib/: the shared C of every tool, one archive each program links (a
# program gets only the members it uses).
LIB_OBJS = $(patsubst %.c,%.o,$(sort $(wildcard lib/*.c)))
LIB = lib/liblinkopt.a
# Each folder may add a build.mk that appends to these and adds its own
# rules, with install:: and clean:: for its files.
PROGS =
BIN_PROGS =
MAN1 =
OBJS = $(LIB_OBJS)

# What the build needs, checked before anything compiles (make deps
# installs it); and what the tests need besides (each build.mk adds its
# own), which make deps installs as well as it can: a test whose tool is
# missing says it is skipped and why.
BUILD_DEPS = libelf.h=libelf-dev gelf.h=libelf-dev elfutils/libdw.h=libdw-dev json-c/json.h=libjson-c-dev \
	valgrind/pub_tool_basics.h=valgrind
# make check-deb needs the Debian packaging tools besides (installed as
# make deps installs, so that the CI's fresh machine runs the test).
DEB_DEPS = bin:dpkg-buildpackage=dpkg-dev bin:dh=debhelper bin:lintian=lintian \
	bin:pkg-config=pkgconf bin:cmake=cmake
TEST_DEPS = bin:ld.gold=binutils bin:strace=strace bin:ld.lld=lld bin:gcov-tool=gcc bin:mold=mold bin:clang-22=clang-22 \
	bin:ld.lld-22=lld-22 bin:llvm-profdata-22=llvm-22 \
	file:/usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.profile-x86_64.a=libclang-rt-22-dev

all: build
-include $(sort $(wildcard */build.mk))
-include tests/unit/build.mk
build: $(PROGS)

# Rebuild everything when the compiler or the flags change (SAN=1 and back).
.flags: FORCE
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)' > $@

.deps-ok: scripts/need-deps
	@scripts/need-deps '$(CC)' $(BUILD_DEPS)
	@touch $@

# make deps: installs with apt-get (as root) what the build and the tests
# need; make demo and make check run it first, a plain make never does.
deps:
	@scripts/need-deps --install '$(CC)' $(BUILD_DEPS)
	-@scripts/need-deps --install '$(CC)' $(TEST_DEPS)

%.o: %.c .flags .deps-ok
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

-include $(OBJS:.o=.d)

# make check: every test but the slow ones (a "# slow test:" line in the
# test's header: the hostile-conditions matrix, the fuzz smoke run), two at
# a time (tests/run -j), longest first; make check-slow runs the slow ones,
# make check TEST_SLOW=1 all of them.  TESTS=t-foo names the tests to run.
check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all unit-build
	TOP='$(CURDIR)' tests/run $(TESTS)

check-slow:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all unit-build
	TOP='$(CURDIR)' tests/run -s

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	TOP='$(CURDIR)' samples/demo

hostile-matrix: all
	TOP='$(CURDIR)' tests/hostile-matrix

# every build-system test in every cell: linker × with and without -j
buildsys-matrix: all
	TOP='$(CURDIR)' tests/buildsys-matrix -o tests/buildsys-matrix.log

bench-deporder: all
	TOP='$(CURDIR)' bench/deporder/run

bench-pagein: all
	TOP='$(CURDIR)' bench/pagein/run

bench-coldstart: all
	TOP='$(CURDIR)' bench/coldstart/run

bench-pfstat: all
	TOP='$(CURDIR)' bench/pfstat/run

# make deb: linkopt's Debian package (debian/), built in a copy of the tree
# into deb/; make check-deb builds it, runs lintian, installs it on this
# machine (root), runs the flow from it and removes it (tests/t-deb.sh).
deb:
	scripts/build-deb deb

check-deb:
	@$(MAKE) --no-print-directory deps
	@scripts/need-deps --install '$(CC)' $(DEB_DEPS)
	TEST_DEB=1 TEST_TIMEOUT=$${TEST_TIMEOUT:-1800} TOP='$(CURDIR)' tests/run -v t-deb

install:: all
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(PREFIX)/share/man/man1'
	install -m 755 $(BIN_PROGS) '$(DESTDIR)$(BINDIR)/'
	install -m 644 $(MAN1) '$(DESTDIR)$(PREFIX)/share/man/man1/'

clean::
	rm -f $(PROGS) $(OBJS) $(OBJS:.o=.d) $(LIB) .flags .deps-ok

.PHONY: all build deps check check-slow check-deb deb demo hostile-matrix buildsys-matrix bench-deporder bench-pagein bench-coldstart bench-pfstat install clean FORCE
