# pfstat: page faults, resident set, times and cold-start reads of a command.
PFSTAT_OBJS = pfstat/main.o pfstat/loopdev.o pfstat/words.o pfstat/input.o pfstat/cold.o pfstat/report.o
PROGS += pfstat/pfstat
BIN_PROGS += pfstat/pfstat
MAN1 += pfstat/pfstat.1
OBJS += $(PFSTAT_OBJS)

pfstat/pfstat: $(PFSTAT_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)

clean::
	rm -f pfstat/pfstat
