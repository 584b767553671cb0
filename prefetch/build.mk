# prefetch: linkopt-prefetch.o, linked into ordered programs and libraries:
# at start-up it asks the kernel to read the traced range ahead.
PROGS += prefetch/linkopt-prefetch.o prefetch/linkopt-cut.o

prefetch/linkopt-prefetch.o: prefetch/prefetch.c .flags
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC $(CPPFLAGS) $(filter-out -fsanitize%,$(CFLAGS)) -c -o $@ $<

# the cut alone (lib/cut.h), for the links linkopt-bolt rewrites
prefetch/linkopt-cut.o: prefetch/prefetch.c .flags
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC -DLINKOPT_CUT_ONLY $(CPPFLAGS) $(filter-out -fsanitize%,$(CFLAGS)) -c -o $@ $<

install::
	install -d '$(DESTDIR)$(PREFIX)/lib/linkopt'
	install -m 644 prefetch/linkopt-prefetch.o prefetch/linkopt-cut.o '$(DESTDIR)$(PREFIX)/lib/linkopt/'

clean::
	rm -f prefetch/linkopt-prefetch.o prefetch/linkopt-cut.o
