# pgo-run: drives gcc's PGO cycle.  Included by the top-level Makefile.
PGO_RUN_OBJS = pgo-run/main.o pgo-run/cycle.o pgo-run/store.o
PROGS += pgo-run/pgo-run
BIN_PROGS += pgo-run/pgo-run
MAN1 += pgo-run/pgo-run.1
OBJS += $(PGO_RUN_OBJS)
# the stages of a cycle and the commands on the store
PGO_RUN_OBJS += pgo-run/session.o pgo-run/steps.o pgo-run/build.o pgo-run/train.o \
	pgo-run/merge.o pgo-run/bench.o pgo-run/commands.o pgo-run/files.o pgo-run/jobs.o
# the compiler wrapper around the builds, and what the objects record
PGO_RUN_OBJS += pgo-run/wrapper.o pgo-run/compiles.o pgo-run/switches.o pgo-run/tree.o
# what differs with clang: raw profiles, llvm-profdata
PGO_RUN_OBJS += pgo-run/llvm.o
PROGS += pgo-run/pgo-cc
OBJS += pgo-run/pgo-cc.o
LIBDIR_LINKOPT ?= $(PREFIX)/lib/linkopt

pgo-run/pgo-run: $(PGO_RUN_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF) $(LDLIBS_JSON)

# run by every compiler command of the builds pgo-run drives: small, and
# found beside pgo-run or in $(LIBDIR_LINKOPT)
pgo-run/pgo-cc: pgo-run/pgo-cc.o $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^

install::
	install -d '$(DESTDIR)$(LIBDIR_LINKOPT)'
	install -m 755 pgo-run/pgo-cc '$(DESTDIR)$(LIBDIR_LINKOPT)/'

bench-pgo: pgo-run/pgo-run
	TOP='$(CURDIR)' bench/pgo/run

.PHONY: bench-pgo
