# linkscripts: libemit.a, the emitters (an order record of lib/ordering.h
# in, the files linkers read out), which deporder links; linkopt-prefetch.o
# is linked into ordered programs and libraries.
EMIT_OBJS = linkscripts/emit.o
PROGS += linkscripts/linkopt-prefetch.o
OBJS += $(EMIT_OBJS)

linkscripts/libemit.a: $(EMIT_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

linkscripts/linkopt-prefetch.o: linkscripts/prefetch.c .flags
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC $(filter-out -fsanitize%,$(CFLAGS)) -c -o $@ $<

install::
	install -d '$(DESTDIR)$(PREFIX)/lib/linkopt'
	install -m 644 linkscripts/linkopt-prefetch.o '$(DESTDIR)$(PREFIX)/lib/linkopt/'

clean::
	rm -f linkscripts/linkopt-prefetch.o linkscripts/libemit.a
