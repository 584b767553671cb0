# tests/unit: unit tests in C of the richest modules of lib/, one program
# per module (tests/unit/test-MODULE.c, with the harness unit.h), linked
# against lib/liblinkopt.a.  make unit builds and runs them; make check
# builds them and runs them through tests/t-unit.sh.
UNIT_TESTS = readahead coldstart pagecache cli archive linkcmd proc faultrec
UNIT_PROGS = $(UNIT_TESTS:%=tests/unit/test-%)
OBJS += $(UNIT_PROGS:=.o)

$(UNIT_PROGS): tests/unit/test-%: tests/unit/test-%.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)

unit-build: $(UNIT_PROGS)

unit: unit-build
	TOP='$(CURDIR)' tests/t-unit.sh


clean::
	rm -f $(UNIT_PROGS)

.PHONY: unit unit-build
