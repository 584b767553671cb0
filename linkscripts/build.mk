# linkscripts: the emitters are part of deporder (see the top Makefile);
# linkopt-prefetch.o is linked into ordered programs and libraries.
PROGS += linkscripts/linkopt-prefetch.o

linkscripts/linkopt-prefetch.o: linkscripts/prefetch.c .flags
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC $(filter-out -fsanitize%,$(CFLAGS)) -c -o $@ $<

install::
	install -d '$(DESTDIR)$(PREFIX)/lib/linkopt'
	install -m 644 linkscripts/linkopt-prefetch.o '$(DESTDIR)$(PREFIX)/lib/linkopt/'

clean::
	rm -f linkscripts/linkopt-prefetch.o
