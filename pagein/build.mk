# pagein: the valgrind tool (built out of tree against the valgrind
# package's headers and static libraries), its launcher and report.
VG_INCLUDE ?= /usr/include/valgrind
VG_LIBDIR ?= /usr/lib/x86_64-linux-gnu/valgrind
VG_LIBEXEC ?= /usr/libexec/valgrind
VG_PLATFORM = amd64-linux
VG_ARCH_DEFS = -DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1
# Valgrind tools run without libc, sanitizers or stack protection.
PAGEIN_TOOL_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare -Wno-unused-parameter \
	-fno-strict-aliasing -fno-builtin -fno-stack-protector -fno-pie -fomit-frame-pointer \
	-I$(VG_INCLUDE) $(VG_ARCH_DEFS) $(VERSION_DEF)
PAGEIN_TOOL = pagein/pagein-$(VG_PLATFORM)

PROGS += $(PAGEIN_TOOL) pagein/vglib/.stamp pagein/pagein pagein/pagein-report
BIN_PROGS += pagein/pagein pagein/pagein-report
MAN1 += pagein/pagein.1
OBJS += pagein/pagein-report.o pagein/launch.o

pagein/pg_main.o: pagein/pg_main.c .deps-ok
	$(CC) $(PAGEIN_TOOL_CFLAGS) -c -o $@ $<

# The --wrap options: see pg_main.c (valgrind 3.19 and clang's DWARF 5).
PAGEIN_TOOL_WRAPS = -Wl,--wrap=vgModuleLocal_read_debuginfo_dwarf3 -Wl,--wrap=vgModuleLocal_new_dwarf3_reader \
	-Wl,--wrap=vgModuleLocal_read_elf_debug_info -Wl,--wrap=vgPlain_exit

$(PAGEIN_TOOL): pagein/pg_main.o
	$(CC) -o $@ $< -static -nodefaultlibs -nostartfiles -u _start -Wl,--build-id=none $(PAGEIN_TOOL_WRAPS) \
		-Wl,-Ttext-segment=0x58000000 $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a \
		$(VG_LIBDIR)/libvex-$(VG_PLATFORM).a -lgcc $(VG_LIBDIR)/libgcc-sup-$(VG_PLATFORM).a

# A folder that valgrind can use as VALGRIND_LIB: the stock files and the
# tool, so that pagein runs from the build tree without installing anything.
pagein/vglib/.stamp: $(PAGEIN_TOOL)
	rm -rf pagein/vglib && mkdir -p pagein/vglib
	for f in $(VG_LIBEXEC)/*; do ln -s "$$f" pagein/vglib/; done
	ln -sf ../pagein-$(VG_PLATFORM) pagein/vglib/pagein-$(VG_PLATFORM)
	touch $@

pagein/pagein: pagein/launch.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^

pagein/pagein-report: pagein/pagein-report.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)

# Installed under PREFIX, never into the system's valgrind folder: a folder
# for VALGRIND_LIB as in the build tree, the stock files linked, which the
# launcher finds beside its own ../lib/linkopt.  A distribution's package,
# which owns the system's valgrind folder through its dependency on valgrind,
# sets PAGEIN_TOOLDIR=$(VG_LIBEXEC) instead: the tool goes beside
# valgrind's own, where `valgrind --tool=pagein` and the launcher find it,
# and no folder of links is made.
PAGEIN_VGLIB = $(PREFIX)/lib/linkopt/valgrind
PAGEIN_TOOLDIR ?=
install::
ifeq ($(PAGEIN_TOOLDIR),)
	install -d '$(DESTDIR)$(PAGEIN_VGLIB)'
	for f in $(VG_LIBEXEC)/*; do case $$f in */pagein-*) ;; *) ln -sfn "$$f" '$(DESTDIR)$(PAGEIN_VGLIB)/';; esac; done
	install -m 755 $(PAGEIN_TOOL) '$(DESTDIR)$(PAGEIN_VGLIB)/'
else
	install -d '$(DESTDIR)$(PAGEIN_TOOLDIR)'
	install -m 755 $(PAGEIN_TOOL) '$(DESTDIR)$(PAGEIN_TOOLDIR)/'
endif
	install -d '$(DESTDIR)$(PREFIX)/share/man/man1'
	printf '.so man1/pagein.1\n' > '$(DESTDIR)$(PREFIX)/share/man/man1/pagein-report.1'

clean::
	rm -rf pagein/pg_main.o $(PAGEIN_TOOL) pagein/vglib pagein/pagein pagein/pagein-report
