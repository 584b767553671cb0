# pgo-run: drives gcc's PGO cycle.  Included by the top-level Makefile.
PGO_RUN_OBJS = pgo-driver/main.o pgo-driver/cycle.o pgo-driver/store.o
PROGS += pgo-driver/pgo-run
BIN_PROGS += pgo-driver/pgo-run
MAN1 += pgo-driver/pgo-run.1
OBJS += $(PGO_RUN_OBJS)
# the stages of a cycle and the commands on the store
PGO_RUN_OBJS += pgo-driver/session.o pgo-driver/report.o pgo-driver/build.o pgo-driver/train.o \
	pgo-driver/merge.o pgo-driver/bench.o pgo-driver/commands.o pgo-driver/files.o

pgo-driver/pgo-run: $(PGO_RUN_OBJS) lib/util.o lib/cli.o lib/json.o lib/proc.o
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_JSON)

bench-pgo: pgo-driver/pgo-run
	TOP='$(CURDIR)' bench/pgo/run

.PHONY: bench-pgo
