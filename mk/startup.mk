# mk/startup.mk: start-up-optimized programs and shared libraries from one
# include, through linkopt-startup(1), the toolkit's one start-up pipeline.
# The reference is linkopt-mk(7).
#
# In a project's Makefile, after the variables below are set:
#
#   LINKOPT ?= /path/to/linkopt          # the tree; unset: found from here
#                                        # (PREFIX/share/linkopt/mk of an install)
#   STARTUP_PROG = prog                  # what the link writes
#   STARTUP_INPUTS = main.o libfoo.a     # what it links, in link order: files
#   STARTUP_LIBS = -lm                   # libraries after them: flags
#   STARTUP_RUN = $(STARTUP_PROGRAM) --version   # the start-up to optimize
#
#   STARTUP_DSOS = foo                   # shared libraries, by names of yours
#   STARTUP_DSO_foo = libfoo.so.1.2      # what the link writes
#   STARTUP_DSO_foo_INPUTS = a.o b.o     # what it links: files
#   STARTUP_DSO_foo_LDFLAGS = -Wl,-soname,libfoo.so.1   # (-shared is added)
#   STARTUP_DSO_foo_LIBS = -lm           # libraries after them
#   STARTUP_DSO_foo_HOST = prog          # the program that loads it
#   STARTUP_DSO_foo_RUN = $(STARTUP_PROGRAM) -d file   # default: STARTUP_RUN
#   include $(LINKOPT)/mk/startup.mk
#
# STARTUP_RUN is a command, not a shell line.  $(STARTUP_PROGRAM) in it
# stands for the program being run, quoted: the absolute path of
# $(STARTUP_PROG), or for a shared library of its host.  Set it with "=",
# not ":=", and name the program with $(STARTUP_PROGRAM): a run that does
# not is refused.
#
#   make startup          for each output OUT: links it through linkopt-cc
#                         (which records the link in STARTUP_DIR), then
#                         linkopt-startup traces the run, orders the link
#                         and relinks OUT with the order in place
#   make startup-report   the same, and the pages the start-up touches,
#                         before and after
#   make startup-check    fails when an order is stale, an input out of
#                         date, or the pages grew back
#   make startup-pgo      make pgo (mk/pgo.mk), then make startup
#   make startup-clean    puts the plain links back and removes the records
#
# STARTUP_LINKER = gnu-ld (default), gold, lld or mold;
# STARTUP_PLACEMENT = head (default), cold-start, data-first, or best:
# each placement with and without relr and BOLT made, traced, scored and
# checked, the one a cold start reads least of (pages and requests) kept, from STARTUP_RUN and
# the shell lines STARTUP_WORKLOAD_1 ... _9, scored on STARTUP_HELD_OUT_1
# ... _9 too, timed on STARTUP_STEADY (linkopt-startup's --workload,
# --held-out, --steady; $(STARTUP_PROGRAM) in them is the program);
# STARTUP_READ_AHEAD_KB (default 128); STARTUP_UNTRACED_SEGMENT_KB = N
# (GNU ld, not best, no BOLT: the code no trace ran in segments of N KiB);
# STARTUP_RELR = yes (link with
# -z pack-relative-relocs); STARTUP_BOLT = yes (linkopt-bolt rewrites the
# ordered outputs; STARTUP_LLVM_BOLT: the llvm-bolt it runs);
# STARTUP_CHECK = a shell line that must print the same
# with the ordered outputs; STARTUP_BEST_WITHOUT = relr bolt segments
# cut cross (any of them) leaves those candidates, or the cross, out of
# best's search (relr: a target whose glibc is older than 2.36;
# linkopt-startup's --no-relr, --no-bolt, --no-segments, --no-cut,
# --no-cross); STARTUP_REQUEST_PAGES = N counts each read request as N
# pages where best ranks (default: a read-ahead window's pages; 0: pages
# alone).  Each is linkopt-startup's option of that name.

LINKOPT ?= $(dir $(lastword $(MAKEFILE_LIST))).
startup_default_goal := $(.DEFAULT_GOAL)
# the project's Makefile, for make startup-pgo's own runs of make
startup_makefile := $(if $(filter-out Makefile makefile GNUmakefile,$(firstword $(MAKEFILE_LIST))),-f $(firstword $(MAKEFILE_LIST)))
STARTUP_CC ?= $(CC)
STARTUP_LINKER ?= gnu-ld
# the flags of the project's links: make's own link rules pass CFLAGS too
# (-static, -pie, -fsanitize matter to a link)
STARTUP_LDFLAGS ?= $(CFLAGS) $(LDFLAGS)
STARTUP_CHECK_TOLERANCE ?= 5
STARTUP_PLACEMENT ?= head
STARTUP_READ_AHEAD_KB ?=
STARTUP_UNTRACED_SEGMENT_KB ?=
STARTUP_RELR ?=
STARTUP_BOLT ?=
STARTUP_LLVM_BOLT ?=
STARTUP_CHECK ?=
STARTUP_BEST_WITHOUT ?=
STARTUP_REQUEST_PAGES ?=
STARTUP_DIR ?= $(CURDIR)/.linkopt
startup_tool = $(firstword $(wildcard $(LINKOPT)/$1/$1 $(LINKOPT)/bin/$1 $(LINKOPT)/../../../bin/$1 \
	$(LINKOPT)/../$1/$1) $1)
STARTUP_LINKOPT_CC ?= $(call startup_tool,linkopt-cc)
STARTUP_LINKOPT_STARTUP ?= $(call startup_tool,linkopt-startup)
STARTUP_LINKERS = gnu-ld gold lld mold
STARTUP_PLACEMENTS = head cold-start data-first best
startup_goals := $(filter startup startup-report startup-check startup-pgo startup-clean,$(MAKECMDGOALS))

ifeq ($(filter $(STARTUP_LINKERS),$(STARTUP_LINKER)),)
$(error mk/startup.mk: STARTUP_LINKER = $(STARTUP_LINKER): not one of $(STARTUP_LINKERS))
endif
ifeq ($(filter $(STARTUP_PLACEMENTS),$(STARTUP_PLACEMENT)),)
$(error mk/startup.mk: STARTUP_PLACEMENT = $(STARTUP_PLACEMENT): not one of $(STARTUP_PLACEMENTS))
endif
ifneq ($(filter-out yes,$(STARTUP_RELR) $(STARTUP_BOLT)),)
$(error mk/startup.mk: STARTUP_RELR and STARTUP_BOLT are yes or empty)
endif
ifneq ($(STARTUP_READ_AHEAD_KB),)
ifeq ($(shell expr '$(STARTUP_READ_AHEAD_KB)' : '[0-9][0-9]*$$'),0)
$(error mk/startup.mk: STARTUP_READ_AHEAD_KB = $(STARTUP_READ_AHEAD_KB): not a number of KiB)
endif
endif
ifneq ($(filter-out relr bolt segments cut cross,$(STARTUP_BEST_WITHOUT)),)
$(error mk/startup.mk: STARTUP_BEST_WITHOUT = $(STARTUP_BEST_WITHOUT): not relr, bolt, segments, cut or cross)
endif
ifneq ($(and $(strip $(STARTUP_BEST_WITHOUT)),$(filter-out best,$(STARTUP_PLACEMENT))),)
$(error mk/startup.mk: STARTUP_BEST_WITHOUT is for STARTUP_PLACEMENT = best)
endif
ifneq ($(STARTUP_REQUEST_PAGES),)
ifeq ($(shell expr '$(STARTUP_REQUEST_PAGES)' : '[0-9][0-9]*$$'),0)
$(error mk/startup.mk: STARTUP_REQUEST_PAGES = $(STARTUP_REQUEST_PAGES): not a number of pages)
endif
ifneq ($(filter-out best,$(STARTUP_PLACEMENT)),)
$(error mk/startup.mk: STARTUP_REQUEST_PAGES is for STARTUP_PLACEMENT = best)
endif
endif
ifneq ($(STARTUP_UNTRACED_SEGMENT_KB),)
ifeq ($(shell expr '$(STARTUP_UNTRACED_SEGMENT_KB)' : '[0-9][0-9]*$$'),0)
$(error mk/startup.mk: STARTUP_UNTRACED_SEGMENT_KB = $(STARTUP_UNTRACED_SEGMENT_KB): not a number of KiB)
endif
endif
ifeq ($(shell expr '$(STARTUP_CHECK_TOLERANCE)' : '[0-9][0-9]*$$'),0)
ifneq ($(startup_goals),)
$(error mk/startup.mk: STARTUP_CHECK_TOLERANCE = $(STARTUP_CHECK_TOLERANCE): not a whole number of percent)
endif
endif
ifneq ($(startup_goals),)
ifneq ($(PGO_RUN_CFLAGS),)
$(error mk/startup.mk: make $(startup_goals) inside a pgo-run build would trace and order an instrumented \
	build: make startup-pgo runs pgo-run first, then make startup)
endif
endif

# a word quoted for the shell
startup_quote = '$(subst ','\'',$1)'
# STARTUP_RUN as run, with STARTUP_PROGRAM set for the target; refused
# when it does not name the program (a ":=" assignment, or a path typed in).
startup_run_refused = mk/startup.mk: STARTUP_RUN does not name the program: write $$(STARTUP_PROGRAM) \
	where it runs it, as in STARTUP_RUN = $$(STARTUP_PROGRAM) --version (set with =, not :=)
startup_run = $(if $(findstring $(STARTUP_PROGRAM),$(1)),$(1),$(error $(startup_run_refused)))

# Each output OUT (the program, each library) has: startup_inputs.OUT,
# startup_flags.OUT, startup_libs.OUT, startup_run.OUT (the name of its
# run's variable), startup_host.OUT (a library's).
# $(call startup_link,OUT,INPUTS): the link of OUT.
startup_link = $(STARTUP_CC) $(STARTUP_LDFLAGS) $(startup_flags.$1) -o $1 $2 $(startup_libs.$1)
# $(call startup_inputs_of,OUT,$+): OUT's inputs as make found them
# (through VPATH too), duplicates kept: they come first in the rules.
startup_inputs_of = $(wordlist 1,$(words $(startup_inputs.$1)),$2)
# linkopt-startup's options
startup_options = --dir=$(call startup_quote,$(STARTUP_DIR)) --linker=$(STARTUP_LINKER) \
	--placement=$(STARTUP_PLACEMENT) $(if $(STARTUP_READ_AHEAD_KB),--read-ahead-kb=$(STARTUP_READ_AHEAD_KB)) \
	$(if $(STARTUP_UNTRACED_SEGMENT_KB),--untraced-segment-kb=$(STARTUP_UNTRACED_SEGMENT_KB)) \
	$(if $(STARTUP_RELR),--relr) $(if $(STARTUP_BOLT),--bolt) \
	$(if $(STARTUP_LLVM_BOLT),--llvm-bolt=$(call startup_quote,$(STARTUP_LLVM_BOLT))) \
	$(if $(STARTUP_CHECK),--check=$(call startup_quote,$(STARTUP_CHECK))) --again='run make startup' \
	$(foreach i,1 2 3 4 5 6 7 8 9,$(if $(value STARTUP_WORKLOAD_$i),--workload=$(call startup_quote,$(STARTUP_WORKLOAD_$i))) \
		$(if $(value STARTUP_HELD_OUT_$i),--held-out=$(call startup_quote,$(STARTUP_HELD_OUT_$i)))) \
	$(if $(value STARTUP_STEADY),--steady=$(call startup_quote,$(STARTUP_STEADY))) \
	$(addprefix --no-,$(sort $(STARTUP_BEST_WITHOUT))) \
	$(if $(STARTUP_REQUEST_PAGES),--request-pages=$(STARTUP_REQUEST_PAGES))

startup_outputs :=
# the first thing wrong with the configuration, said when a target of the
# fragment is asked for
startup_problem :=
startup_said = $(eval startup_problem := $(or $(startup_problem),$1))
ifneq ($(strip $(STARTUP_PROG)),)
startup_outputs += $(STARTUP_PROG)
startup_inputs.$(STARTUP_PROG) = $(STARTUP_INPUTS)
startup_libs.$(STARTUP_PROG) = $(STARTUP_LIBS)
startup_run.$(STARTUP_PROG) := STARTUP_RUN
ifeq ($(strip $(STARTUP_INPUTS)),)
$(call startup_said,STARTUP_INPUTS is empty: name the files the link of $(STARTUP_PROG) reads)
endif
endif
# A library's run defaults to STARTUP_RUN, which then runs its host.
define startup_dso_variables
startup_outputs += $(STARTUP_DSO_$1)
startup_inputs.$(STARTUP_DSO_$1) = $$(STARTUP_DSO_$1_INPUTS)
startup_flags.$(STARTUP_DSO_$1) = -shared $$(STARTUP_DSO_$1_LDFLAGS)
startup_libs.$(STARTUP_DSO_$1) = $$(STARTUP_DSO_$1_LIBS)
startup_run.$(STARTUP_DSO_$1) := $(if $(value STARTUP_DSO_$1_RUN),STARTUP_DSO_$1_RUN,STARTUP_RUN)
startup_host.$(STARTUP_DSO_$1) := $(STARTUP_DSO_$1_HOST)
endef
$(foreach d,$(STARTUP_DSOS),$(if $(strip $(STARTUP_DSO_$d)),\
	$(if $(strip $(STARTUP_DSO_$d_INPUTS)),,$(call startup_said,STARTUP_DSO_$d_INPUTS is empty: name the files the link of $(STARTUP_DSO_$d) reads))\
	$(if $(strip $(STARTUP_DSO_$d_HOST)),,$(call startup_said,STARTUP_DSO_$d_HOST is empty: name the program that loads $(STARTUP_DSO_$d)))\
	$(eval $(call startup_dso_variables,$d)),\
	$(call startup_said,STARTUP_DSO_$d is empty: name the library $d's link writes)))
ifneq ($(words $(startup_outputs)),$(words $(sort $(notdir $(startup_outputs)))))
$(call startup_said,two outputs of the same file name: $(startup_outputs))
endif
ifneq ($(startup_goals),)
ifeq ($(strip $(startup_outputs)),)
$(call startup_said,nothing to order: set STARTUP_PROG or STARTUP_DSOS)
endif
ifneq ($(startup_problem),)
$(error mk/startup.mk: $(startup_problem))
endif
endif
# The hosts the libraries are traced through: the project's rules that
# make them run before any relink.
startup_hosts := $(sort $(foreach o,$(startup_outputs),$(startup_host.$o)))

# $(call startup_rules,OUT): the rules of one output.  linkopt-cc records
# the link (and runs nothing); linkopt-startup links, traces, orders and
# relinks OUT in place, and does nothing when nothing changed.
define startup_rules
startup-record-$1: $(startup_inputs.$1) startup-force | $(startup_hosts)
	@$$(STARTUP_LINKOPT_CC) --record-only --dir=$$(call startup_quote,$$(STARTUP_DIR)) --name=$(notdir $1) \
		$$(call startup_link,$1,$$(call startup_inputs_of,$1,$$+))

startup-$1: private STARTUP_PROGRAM = $(call startup_quote,$(CURDIR)/$(or $(startup_host.$1),$1))
startup-$1: startup-record-$1
	$$(STARTUP_LINKOPT_STARTUP) $$(startup_options) $(if $(STARTUP_PGO),--pgo-built) --target=$(notdir $1) -- \
		$$(call startup_run,$$($(startup_run.$1)))

startup-report-$1: private STARTUP_PROGRAM = $(call startup_quote,$(CURDIR)/$(or $(startup_host.$1),$1))
startup-report-$1: startup-record-$1
	$$(STARTUP_LINKOPT_STARTUP) $$(startup_options) --report --target=$(notdir $1) -- \
		$$(call startup_run,$$($(startup_run.$1)))

startup-check-$1: private STARTUP_PROGRAM = $(call startup_quote,$(CURDIR)/$(or $(startup_host.$1),$1))
startup-check-$1: startup-force
	@$$(STARTUP_LINKOPT_STARTUP) $$(startup_options) --verify --tolerance=$$(STARTUP_CHECK_TOLERANCE) \
		--target=$(notdir $1) -- $$(call startup_run,$$($(startup_run.$1)))
	@$$(MAKE) -s -q $(startup_makefile) $(startup_inputs.$1) 2> /dev/null || \
		{ echo "mk/startup.mk: $1: an input is out of date (make would rebuild it): run make, then make startup" >&2; \
		exit 1; }

startup-clean-$1: startup-force
	@if [ -e $$(call startup_quote,$$(STARTUP_DIR)/$(notdir $1).link) ]; then \
		$$(STARTUP_LINKOPT_STARTUP) --dir=$$(call startup_quote,$$(STARTUP_DIR)) --undo --target=$(notdir $1) -- true; \
	fi

.PHONY: startup-record-$1 startup-$1 startup-report-$1 startup-check-$1 startup-clean-$1
endef
$(foreach o,$(startup_outputs),$(eval $(call startup_rules,$o)))

startup: $(addprefix startup-,$(startup_outputs))

startup-report: $(addprefix startup-report-,$(startup_outputs))

startup-check: $(addprefix startup-check-,$(startup_outputs))

startup-clean: $(addprefix startup-clean-,$(startup_outputs))

# pgo-run's optimized build, then the order of what it built: make must
# have nothing left to rebuild among the inputs.
startup-pgo:
	$(MAKE) $(startup_makefile) pgo
	@$(MAKE) -s -q $(startup_makefile) $(sort $(foreach o,$(startup_outputs),$(startup_inputs.$o))) || \
		{ echo "mk/startup.mk: make pgo left inputs of the ordered links out of date (make would rebuild them" \
			"without the profile): PGO_TARGET must build all of $(sort $(foreach o,$(startup_outputs),$(startup_inputs.$o)))" >&2; \
			exit 1; }
	$(MAKE) $(startup_makefile) startup STARTUP_PGO=yes

startup-force:

.PHONY: startup startup-report startup-check startup-clean startup-pgo startup-force
# the project's first target stays the default goal, wherever the include is
.DEFAULT_GOAL := $(startup_default_goal)
