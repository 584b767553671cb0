# pgo-run: drives gcc's PGO cycle.  Included by the top-level Makefile.
PGO_RUN_OBJS = pgo-driver/main.o pgo-driver/cycle.o pgo-driver/store.o pgo-driver/proc.o
PROGS += pgo-driver/pgo-run
BIN_PROGS += pgo-driver/pgo-run
MAN1 += pgo-driver/pgo-run.1
OBJS += $(PGO_RUN_OBJS)

pgo-driver/pgo-run: $(PGO_RUN_OBJS) lib/util.o lib/json.o
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_JSON)

bench-pgo: pgo-driver/pgo-run
	TOP='$(CURDIR)' bench/pgo/run

.PHONY: bench-pgo
