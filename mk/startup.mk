# mk/startup.mk: a start-up-optimized program from one include.
#
# In a project's Makefile:
#
#   LINKOPT ?= /path/to/linkopt          # the tree (or PREFIX of an install)
#   STARTUP_PROG = prog                  # what the link writes
#   STARTUP_INPUTS = main.o libfoo.a     # what it links, in link order
#   STARTUP_LIBS = -lm                   # libraries after them
#   STARTUP_RUN = ./$(STARTUP_PROG) --version   # the start-up to optimize
#   include $(LINKOPT)/mk/startup.mk
#
# Compile with -ffunction-sections -fdata-sections for function-level
# orders; archives of other builds are ordered by their own sections.
#
#   make startup          links $(STARTUP_PROG).default with a map, traces
#                         STARTUP_RUN on it with pagein, orders the link with
#                         deporder and relinks $(STARTUP_PROG) with the GNU ld
#                         script and linkopt-prefetch.o
#   make startup-report   pages the start-up touches, before and after
#   make startup-clean    removes what these targets wrote
#
# STARTUP_LINKER = gold or lld uses their ordering files instead of a script.

LINKOPT ?= $(dir $(lastword $(MAKEFILE_LIST))).
STARTUP_CC ?= $(CC)
STARTUP_LINKER ?= gnu-ld
STARTUP_LDFLAGS ?= $(LDFLAGS)
STARTUP_DEPORDER ?= $(firstword $(wildcard $(LINKOPT)/deporder/deporder $(LINKOPT)/bin/deporder) deporder)
STARTUP_PAGEIN ?= $(firstword $(wildcard $(LINKOPT)/pagein/pagein $(LINKOPT)/bin/pagein) pagein)
STARTUP_REPORT ?= $(firstword $(wildcard $(LINKOPT)/pagein/pagein-report $(LINKOPT)/bin/pagein-report) pagein-report)
STARTUP_PREFETCH ?= $(firstword $(wildcard $(LINKOPT)/linkscripts/linkopt-prefetch.o $(LINKOPT)/lib/linkopt/linkopt-prefetch.o))
STARTUP_LINK = $(STARTUP_CC) $(STARTUP_LDFLAGS) -o $(STARTUP_PROG) $(STARTUP_INPUTS) $(STARTUP_LIBS)

$(STARTUP_PROG).default $(STARTUP_PROG).map: $(STARTUP_INPUTS)
	$(STARTUP_CC) $(STARTUP_LDFLAGS) -o $(STARTUP_PROG).default $(STARTUP_INPUTS) $(STARTUP_LIBS) \
		-Wl,-Map=$(STARTUP_PROG).map

$(STARTUP_PROG).trace: $(STARTUP_PROG).default
	$(STARTUP_PAGEIN) --granularity=function --out-file=$(CURDIR)/$@ -- \
		$(subst ./$(STARTUP_PROG),./$(STARTUP_PROG).default,$(STARTUP_RUN)) > /dev/null

$(STARTUP_PROG).order: $(STARTUP_PROG).trace $(STARTUP_PROG).map
	$(STARTUP_DEPORDER) -q --granularity=section --trace $(STARTUP_PROG).trace --map $(STARTUP_PROG).map \
		--emit=$(STARTUP_LINKER) --out $@ --cc -- $(STARTUP_LINK)

startup: $(STARTUP_PROG).order
ifeq ($(STARTUP_LINKER),gnu-ld)
	$(STARTUP_LINK) $(STARTUP_PREFETCH) -Wl,-T,$(STARTUP_PROG).order
else ifeq ($(STARTUP_LINKER),gold)
	$(STARTUP_LINK) -fuse-ld=gold -Wl,--section-ordering-file,$(STARTUP_PROG).order
else
	$(STARTUP_LINK) -fuse-ld=lld -Wl,--symbol-ordering-file,$(STARTUP_PROG).order
endif

startup-report: startup
	$(STARTUP_PAGEIN) --out-file=$(CURDIR)/$(STARTUP_PROG).after.trace -- $(STARTUP_RUN) > /dev/null
	$(STARTUP_REPORT) $(STARTUP_PROG).trace $(STARTUP_PROG).after.trace

startup-clean:
	rm -f $(STARTUP_PROG).default $(STARTUP_PROG).map $(STARTUP_PROG).trace $(STARTUP_PROG).order \
		$(STARTUP_PROG).after.trace

.PHONY: startup startup-report startup-clean
