# cygtrace: the -finstrument-functions runtime (shared and static) and the
# offline resolver.  The runtime is loaded into users' programs: it is built
# without sanitizers and without instrumentation, whatever SAN says.
CYGTRACE_RUNTIME_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Wno-sign-compare -fPIC \
	-fno-instrument-functions -fvisibility=hidden -ftls-model=initial-exec $(VERSION_DEF) $(CPPFLAGS) $(filter-out -fsanitize%,$(CFLAGS))

PROGS += cygtrace/libcygtrace.so cygtrace/libcygtrace.a cygtrace/cygtrace-resolve
BIN_PROGS += cygtrace/cygtrace-resolve
MAN1 += cygtrace/cygtrace.1
OBJS += cygtrace/resolve.o

cygtrace/runtime.pic.o: cygtrace/runtime.c .flags
	$(CC) $(CYGTRACE_RUNTIME_CFLAGS) -c -o $@ $<

cygtrace/libcygtrace.so: cygtrace/runtime.pic.o
	$(CC) -shared -Wl,-soname,libcygtrace.so $(filter-out -fsanitize%,$(LDFLAGS)) -o $@ $< -lpthread

cygtrace/libcygtrace.a: cygtrace/runtime.pic.o
	rm -f $@ && ar rcs $@ $<

cygtrace/cygtrace-resolve: cygtrace/resolve.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_DW) $(LDLIBS_ELF)

install::
	install -d '$(DESTDIR)$(PREFIX)/lib'
	install -m 755 cygtrace/libcygtrace.so '$(DESTDIR)$(PREFIX)/lib/'
	install -m 644 cygtrace/libcygtrace.a '$(DESTDIR)$(PREFIX)/lib/'
	install -d '$(DESTDIR)$(PREFIX)/share/man/man1'
	printf '.so man1/cygtrace.1\n' > '$(DESTDIR)$(PREFIX)/share/man/man1/cygtrace-resolve.1'

clean::
	rm -f cygtrace/runtime.pic.o cygtrace/libcygtrace.so cygtrace/libcygtrace.a cygtrace/cygtrace-resolve
