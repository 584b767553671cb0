# linkopt-bolt: the driver of BOLT (llvm-bolt) with linkopt's
# profile (pagein --branches) and start-up order.
BOLT_OBJS = linkopt-bolt/main.o linkopt-bolt/profile.o linkopt-bolt/check.o
PROGS += linkopt-bolt/linkopt-bolt
BIN_PROGS += linkopt-bolt/linkopt-bolt
OBJS += $(BOLT_OBJS)

linkopt-bolt/linkopt-bolt: $(BOLT_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF) -lm

clean::
	rm -f linkopt-bolt/linkopt-bolt

# make check's BOLT tests need llvm-bolt-16 (Debian bookworm's bolt-16)
# and llvm-bolt-22 (bookworm-security's bolt-22), which make deps
# installs; without them they say they are skipped and why.
TEST_DEPS += bin:llvm-bolt-16=bolt-16 bin:llvm-bolt-22=bolt-22
MAN1 += linkopt-bolt/linkopt-bolt.1

# which BOLT versions and link options linkopt-bolt is known good with
# (linkopt-bolt(1), KNOWN GOOD): every llvm-bolt installed, on small
# programs and SQLite (fetched into LINKOPT_CACHE)
bolt-matrix: all
	TOP='$(CURDIR)' tests/bolt-matrix -o linkopt-bolt/bolt-matrix.txt

.PHONY: bolt-matrix
