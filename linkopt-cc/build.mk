# linkopt-cc: the compiler wrapper (or CMake linker launcher) that records
# each link of a build and applies its order.  Run by every compiler
# command of a build: small (it uses few members of the archive).
PROGS += linkopt-cc/linkopt-cc
BIN_PROGS += linkopt-cc/linkopt-cc
OBJS += linkopt-cc/main.o

linkopt-cc/linkopt-cc: linkopt-cc/main.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^

clean::
	rm -f linkopt-cc/linkopt-cc

install::
	install -d '$(DESTDIR)$(PREFIX)/share/man/man1'
	printf '.so man1/linkopt-startup.1\n' > '$(DESTDIR)$(PREFIX)/share/man/man1/linkopt-cc.1'
