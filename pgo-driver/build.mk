# pgo-run: drives gcc's PGO cycle.  Included by the top-level Makefile.
PGO_RUN_OBJS = pgo-driver/main.o pgo-driver/cycle.o pgo-driver/store.o
PROGS += pgo-driver/pgo-run
BIN_PROGS += pgo-driver/pgo-run
MAN1 += pgo-driver/pgo-run.1
OBJS += $(PGO_RUN_OBJS)
# the stages of a cycle and the commands on the store
PGO_RUN_OBJS += pgo-driver/session.o pgo-driver/report.o pgo-driver/build.o pgo-driver/train.o \
	pgo-driver/merge.o pgo-driver/bench.o pgo-driver/commands.o pgo-driver/files.o
# the compiler wrapper around the builds, and what the objects record
PGO_RUN_OBJS += pgo-driver/wrapper.o pgo-driver/compiles.o pgo-driver/switches.o pgo-driver/tree.o
PROGS += pgo-driver/pgo-cc
OBJS += pgo-driver/pgo-cc.o
LIBDIR_LINKOPT ?= $(PREFIX)/lib/linkopt

pgo-driver/pgo-run: $(PGO_RUN_OBJS) lib/util.o lib/cli.o lib/json.o lib/proc.o lib/elfobj.o lib/gcda.o \
	lib/progress.o
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF) $(LDLIBS_JSON)

# run by every compiler command of the builds pgo-run drives: small, and
# found beside pgo-run or in $(LIBDIR_LINKOPT)
pgo-driver/pgo-cc: pgo-driver/pgo-cc.o lib/util.o
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^

install::
	install -d '$(DESTDIR)$(LIBDIR_LINKOPT)'
	install -m 755 pgo-driver/pgo-cc '$(DESTDIR)$(LIBDIR_LINKOPT)/'

bench-pgo: pgo-driver/pgo-run
	TOP='$(CURDIR)' bench/pgo/run

.PHONY: bench-pgo
