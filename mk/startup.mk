# mk/startup.mk: a start-up-optimized program from one include.
#
# In a project's Makefile:
#
#   LINKOPT ?= /path/to/linkopt          # the tree; unset: found from here
#                                        # (PREFIX/share/linkopt/mk of an install)
#   STARTUP_PROG = prog                  # what the link writes
#   STARTUP_INPUTS = main.o libfoo.a     # what it links, in link order
#   STARTUP_LIBS = -lm                   # libraries after them
#   STARTUP_RUN = $(STARTUP_PROGRAM) --version   # the start-up to optimize
#   include $(LINKOPT)/mk/startup.mk
#
# STARTUP_RUN is a command, not a shell line.  $(STARTUP_PROGRAM) in it
# stands for the program being run: the absolute path of
# $(STARTUP_PROG).default when the default link is traced, of
# $(STARTUP_PROG) after the relink; no other word of the command is
# touched.  Set STARTUP_RUN with "=", not ":=", and name the program with
# $(STARTUP_PROGRAM): a STARTUP_RUN that does not is refused.
#
# Compile with -ffunction-sections -fdata-sections for function-level
# orders; archives of other builds are ordered by their own sections.
#
#   make startup          links $(STARTUP_PROG).default with a map, traces
#                         STARTUP_RUN on it with pagein, orders the link with
#                         deporder into $(STARTUP_PROG).$(STARTUP_LINKER).order
#                         and relinks $(STARTUP_PROG) with it (GNU ld: the
#                         script and linkopt-prefetch.o)
#   make startup-report   pages and functions the start-up touches, before
#                         and after
#   make startup-clean    removes what these targets wrote
#
# STARTUP_LINKER = gnu-ld (default), gold, lld or mold: each has its own
# order file, so switching needs no clean.  lld links with
# --no-warn-symbol-ordering: the order is made from this very link, and
# lld warns about every name that a shared library defines too (a static
# error() beside libc's) while it orders the program's own definition.

LINKOPT ?= $(dir $(lastword $(MAKEFILE_LIST))).
STARTUP_CC ?= $(CC)
STARTUP_LINKER ?= gnu-ld
STARTUP_LDFLAGS ?= $(LDFLAGS)
STARTUP_DEPORDER ?= $(firstword $(wildcard $(LINKOPT)/deporder/deporder $(LINKOPT)/bin/deporder $(LINKOPT)/../../../bin/deporder \
	$(LINKOPT)/../deporder/deporder) deporder)
STARTUP_PAGEIN ?= $(firstword $(wildcard $(LINKOPT)/pagein/pagein $(LINKOPT)/bin/pagein $(LINKOPT)/../../../bin/pagein \
	$(LINKOPT)/../pagein/pagein) pagein)
STARTUP_REPORT ?= $(firstword $(wildcard $(LINKOPT)/pagein/pagein-report $(LINKOPT)/bin/pagein-report $(LINKOPT)/../../../bin/pagein-report \
	$(LINKOPT)/../pagein/pagein-report) pagein-report)
STARTUP_PREFETCH ?= $(firstword $(wildcard $(LINKOPT)/linkscripts/linkopt-prefetch.o $(LINKOPT)/lib/linkopt/linkopt-prefetch.o \
	$(LINKOPT)/../../../lib/linkopt/linkopt-prefetch.o $(LINKOPT)/../linkscripts/linkopt-prefetch.o))
STARTUP_LINK = $(STARTUP_CC) $(STARTUP_LDFLAGS) -o $(STARTUP_PROG) $(STARTUP_INPUTS) $(STARTUP_LIBS)
STARTUP_ORDER = $(STARTUP_PROG).$(STARTUP_LINKER).order
STARTUP_LINKERS = gnu-ld gold lld mold

ifeq ($(filter $(STARTUP_LINKERS),$(STARTUP_LINKER)),)
$(error mk/startup.mk: STARTUP_LINKER = $(STARTUP_LINKER): not one of $(STARTUP_LINKERS))
endif

# STARTUP_RUN as run, with STARTUP_PROGRAM set for the target; refused
# when it does not name the program (a ":=" assignment, or a path typed in).
startup_run_refused = mk/startup.mk: STARTUP_RUN does not name the program: write $$(STARTUP_PROGRAM) \
	where it runs it, as in STARTUP_RUN = $$(STARTUP_PROGRAM) --version (set with =, not :=)
startup_run = $(if $(findstring $(STARTUP_PROGRAM),$(STARTUP_RUN)),$(STARTUP_RUN),$(error $(startup_run_refused)))

$(STARTUP_PROG).default $(STARTUP_PROG).map: $(STARTUP_INPUTS)
	$(STARTUP_CC) $(STARTUP_LDFLAGS) -o $(STARTUP_PROG).default $(STARTUP_INPUTS) $(STARTUP_LIBS) \
		-Wl,-Map=$(STARTUP_PROG).map

$(STARTUP_PROG).trace: STARTUP_PROGRAM = $(abspath $(STARTUP_PROG).default)
$(STARTUP_PROG).trace: $(STARTUP_PROG).default
	$(STARTUP_PAGEIN) --granularity=function --out-file=$(CURDIR)/$@ -- $(startup_run) > /dev/null

$(STARTUP_ORDER): $(STARTUP_PROG).trace $(STARTUP_PROG).map
	$(STARTUP_DEPORDER) -q --granularity=section --trace $(STARTUP_PROG).trace --map $(STARTUP_PROG).map \
		--emit=$(STARTUP_LINKER) --out $@ --cc -- $(STARTUP_LINK)

startup: $(STARTUP_ORDER)
ifeq ($(STARTUP_LINKER),gnu-ld)
	$(STARTUP_LINK) $(STARTUP_PREFETCH) -Wl,-T,$(STARTUP_ORDER)
else ifeq ($(STARTUP_LINKER),gold)
	$(STARTUP_LINK) -fuse-ld=gold -Wl,--section-ordering-file,$(STARTUP_ORDER)
else ifeq ($(STARTUP_LINKER),lld)
	$(STARTUP_LINK) -fuse-ld=lld -Wl,--symbol-ordering-file,$(STARTUP_ORDER) -Wl,--no-warn-symbol-ordering
else
	$(STARTUP_LINK) -fuse-ld=$(STARTUP_LINKER) -Wl,--symbol-ordering-file,$(STARTUP_ORDER)
endif

startup-report: STARTUP_PROGRAM = $(abspath $(STARTUP_PROG))
startup-report: startup
	$(STARTUP_PAGEIN) --granularity=function --out-file=$(CURDIR)/$(STARTUP_PROG).after.trace -- \
		$(startup_run) > /dev/null
	$(STARTUP_REPORT) $(STARTUP_PROG).trace $(STARTUP_PROG).after.trace

startup-clean:
	rm -f $(STARTUP_PROG).default $(STARTUP_PROG).map $(STARTUP_PROG).trace \
		$(foreach l,$(STARTUP_LINKERS),$(STARTUP_PROG).$(l).order) $(STARTUP_PROG).after.trace

.PHONY: startup startup-report startup-clean
