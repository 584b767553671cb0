# buildsys: start-up-ordered programs and shared libraries from any build
# system: linkopt-cc, the compiler wrapper (or CMake linker launcher) that
# records each link and applies its order, and linkopt-startup, which
# relinks, traces, orders and relinks the outputs it names.
BUILDSYS_OBJS = buildsys/linkcmd.o buildsys/record.o
PROGS += buildsys/linkopt-cc buildsys/linkopt-startup
BIN_PROGS += buildsys/linkopt-cc buildsys/linkopt-startup
MAN1 += buildsys/linkopt-startup.1
OBJS += $(BUILDSYS_OBJS) buildsys/cc.o buildsys/startup.o

# run by every compiler command of a build: small
buildsys/linkopt-cc: buildsys/cc.o $(BUILDSYS_OBJS) lib/cli.o lib/proc.o lib/util.o
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^

buildsys/linkopt-startup: buildsys/startup.o $(BUILDSYS_OBJS) $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)

clean::
	rm -f buildsys/linkopt-cc buildsys/linkopt-startup

install::
	install -d '$(DESTDIR)$(PREFIX)/share/man/man1'
	printf '.so man1/linkopt-startup.1\n' > '$(DESTDIR)$(PREFIX)/share/man/man1/linkopt-cc.1'

# make check's build-system tests need cmake, meson and ninja (and mold,
# whose Debian 12 version has no ordering option, for the refusal),
# installed where need-deps may install (as root); elsewhere they say they
# are skipped and why.
check: buildsys-deps
buildsys-deps:
	-@scripts/need-deps '$(CC)' bin:cmake=cmake bin:meson=meson bin:ninja=ninja-build bin:ld.mold=mold

.PHONY: buildsys-deps

bench-buildsys: all
	TOP='$(CURDIR)' bench/buildsys/run

.PHONY: bench-buildsys
