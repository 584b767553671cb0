# fuzz: libFuzzer harnesses for every reader of the toolkit, built apart
# from the tools with clang (ASan + UBSan + libFuzzer) under fuzz/build/.
# make fuzz-build builds them; make fuzz makes the seed corpora and runs
# each harness for FUZZ_SECONDS, keeping its corpus under fuzz/work/.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=gnu11 $(WARN) -I. -Ilib $(VERSION_DEF) -g -O1 $(FUZZ_SANITIZE) -fsanitize=fuzzer-no-link
FUZZ_LDFLAGS = $(FUZZ_SANITIZE) -fsanitize=fuzzer
FUZZ_HARNESSES = elfobj archive inputs ldmap trace sites json store
FUZZ_BINS = $(FUZZ_HARNESSES:%=fuzz/build/fuzz-%)

# deporder/build.mk, which sets DEPORDER_OBJS, is read before this file
FUZZ_DEPORDER_OBJS = $(filter-out deporder/main.o,$(DEPORDER_OBJS))
FUZZ_LIB = fuzz/build/lib/liblinkopt.a
fuzz/build/fuzz-elfobj: fuzz/build/fuzz/fuzz-elfobj.o fuzz/build/lib/elfobj.o fuzz/build/lib/util.o
fuzz/build/fuzz-archive: fuzz/build/fuzz/fuzz-archive.o fuzz/build/lib/archive.o fuzz/build/lib/elfobj.o \
	fuzz/build/lib/util.o
fuzz/build/fuzz-inputs: fuzz/build/fuzz/fuzz-inputs.o $(FUZZ_DEPORDER_OBJS:%=fuzz/build/%) $(FUZZ_LIB)
fuzz/build/fuzz-ldmap: fuzz/build/fuzz/fuzz-ldmap.o fuzz/build/lib/ldmap.o fuzz/build/lib/util.o
fuzz/build/fuzz-trace: fuzz/build/fuzz/fuzz-trace.o fuzz/build/lib/trace.o fuzz/build/lib/util.o
fuzz/build/fuzz-sites: fuzz/build/fuzz/fuzz-sites.o fuzz/build/likely-check/sites.o fuzz/build/lib/util.o
fuzz/build/fuzz-json: fuzz/build/fuzz/fuzz-json.o fuzz/build/lib/json.o fuzz/build/lib/util.o
fuzz/build/fuzz-store: fuzz/build/fuzz/fuzz-store.o fuzz/build/pgo-run/store.o \
	fuzz/build/pgo-run/files.o fuzz/build/lib/util.o

$(FUZZ_LIB): $(LIB_OBJS:%=fuzz/build/%)
	rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_BINS): fuzz/build/fuzz/harness.o
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(LDLIBS_ELF) $(LDLIBS_JSON)

# clang and its libFuzzer runtime, installed by need-deps as for the tools.
fuzz/build/.deps-ok: scripts/need-deps
	@scripts/need-deps '$(FUZZ_CC)' stddef.h=clang sanitizer/lsan_interface.h=libclang-rt-14-dev
	@mkdir -p $(@D) && touch $@

# Rebuild the harnesses when the compiler or the flags change.
fuzz/build/.flags: FORCE
	@mkdir -p $(@D)
	@echo '$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LDFLAGS)' | cmp -s - $@ || \
		echo '$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_LDFLAGS)' > $@

fuzz/build/%.o: %.c fuzz/build/.flags fuzz/build/.deps-ok
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

-include $(wildcard fuzz/build/*/*.d)

fuzz-build: $(FUZZ_BINS)

# make check's smoke run of the harnesses (tests/t-fuzz-smoke.sh) needs
# clang's libFuzzer (make deps installs it); without it the test says it
# is skipped and why.
TEST_DEPS += stddef.h=clang sanitizer/lsan_interface.h=libclang-rt-14-dev

fuzz: all fuzz-build
	FUZZ_SECONDS='$(FUZZ_SECONDS)' FUZZ_RECORD='$(CURDIR)/fuzz/history.tsv' TOP='$(CURDIR)' fuzz/run $(FUZZ_HARNESSES)

clean::
	rm -rf fuzz/build

.PHONY: fuzz fuzz-build
