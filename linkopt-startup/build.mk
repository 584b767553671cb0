# linkopt-startup: relinks, traces, orders and relinks the outputs of a
# build that linkopt-cc recorded (the start-up pipeline).
PROGS += linkopt-startup/linkopt-startup
BIN_PROGS += linkopt-startup/linkopt-startup
MAN1 += linkopt-startup/linkopt-startup.1
STARTUP_OBJS = linkopt-startup/main.o linkopt-startup/link.o linkopt-startup/run.o linkopt-startup/order.o \
	linkopt-startup/bolt.o linkopt-startup/state.o linkopt-startup/measure.o linkopt-startup/verify.o \
	linkopt-startup/keep.o linkopt-startup/search.o linkopt-startup/native.o
OBJS += $(STARTUP_OBJS)

linkopt-startup/linkopt-startup: $(STARTUP_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)

clean::
	rm -f linkopt-startup/linkopt-startup

install::
	install -d '$(DESTDIR)$(PREFIX)/share/man/man1'
	printf '.so man1/linkopt-startup.1\n' > '$(DESTDIR)$(PREFIX)/share/man/man1/linkopt-cc.1'

# make check's build-system tests need cmake, meson and ninja (and mold,
# whose Debian 12 version has no ordering option, for the refusal),
# which make deps installs; without them they say they are skipped and
# why.
TEST_DEPS += bin:cmake=cmake bin:meson=meson bin:ninja=ninja-build bin:ld.mold=mold

bench-buildsys: all
	TOP='$(CURDIR)' bench/buildsys/run

.PHONY: bench-buildsys
