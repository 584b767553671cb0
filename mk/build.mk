# mk: the make fragments, their man page, and the pkg-config files that
# say where an install put everything (relocatable: ${pcfiledir}).
MAN7 += mk/linkopt-mk.7
LINKOPT_PC = mk/linkopt.pc mk/linkopt-cygtrace.pc mk/linkopt-likely-check.pc

install::
	install -d '$(DESTDIR)$(PREFIX)/share/linkopt/mk' '$(DESTDIR)$(PREFIX)/share/man/man7' \
		'$(DESTDIR)$(PREFIX)/lib/pkgconfig'
	install -m 644 mk/startup.mk mk/pgo.mk '$(DESTDIR)$(PREFIX)/share/linkopt/mk/'
	install -m 644 $(MAN7) '$(DESTDIR)$(PREFIX)/share/man/man7/'
	for pc in $(LINKOPT_PC); do \
		sed 's/@VERSION@/$(VERSION)/' $$pc > '$(DESTDIR)$(PREFIX)/lib/pkgconfig/'$${pc#mk/} || exit 1; \
	done
