# mk/startup.mk: start-up-optimized programs and shared libraries from one
# include.  The reference is linkopt-mk(7).
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
# stands for the program being run: the absolute path of
# $(STARTUP_PROG).default when the default link is traced, of
# $(STARTUP_PROG) after the relink; for a shared library, of its host
# both times.  No other word of the command is touched.  Set it with "=",
# not ":=", and name the program with $(STARTUP_PROGRAM): a run that does
# not is refused.
#
# A shared library is traced through its host with LD_LIBRARY_PATH naming
# a folder that holds the library under its soname: OUT.libdir/default
# (the default link) when traced for the order, OUT.libdir/ordered after.
# The host stays the project's own and nothing of the project is touched
# but OUT; a host that finds the library before LD_LIBRARY_PATH (a
# DT_RPATH) is refused, since the trace proves by build-id what it loaded.
#
# Compile with -ffunction-sections -fdata-sections for function-level
# orders (and -fPIC for a library); archives of other builds are ordered by
# their own sections.
#
#   make startup          for each output OUT: links OUT.default with a map
#                         OUT.map, traces the run on it (OUT.trace), orders
#                         the link (OUT.$(STARTUP_LINKER).order), relinks
#                         OUT with it, traces the run on OUT
#                         (OUT.after.trace) and records both figures
#                         (OUT.record)
#   make startup-report   pages and functions the start-up touches, before
#                         and after
#   make startup-check    fails when an order is stale or the pages grew back
#   make startup-pgo      make pgo (mk/pgo.mk), then make startup
#   make startup-clean    removes what these targets wrote
#
# STARTUP_LINKER = gnu-ld (default), gold, lld or mold: each has its own
# order file, so switching needs no clean.  STARTUP_PLACEMENT = head
# (default: the traced sections first) or cold-start (deporder's placement
# for the fewest file pages read at a cold start through
# STARTUP_READ_AHEAD_KB of read-ahead, default 128; its own order file,
# OUT.LINKER.cold-start.order).  On a glibc of 2.36 or later,
# STARTUP_LDFLAGS += -Wl,-z,pack-relative-relocs shrinks the relocations
# a start-up reads too.  lld links with
# --no-warn-symbol-ordering: the order is made from this very link, and
# lld warns about every name that a shared library defines too (a static
# error() beside libc's) while it orders the program's own definition.

LINKOPT ?= $(dir $(lastword $(MAKEFILE_LIST))).
startup_sh := $(SHELL) $(dir $(lastword $(MAKEFILE_LIST)))startup.sh
startup_default_goal := $(.DEFAULT_GOAL)
# the project's Makefile, for make startup-pgo's own runs of make
startup_makefile := $(if $(filter-out Makefile makefile GNUmakefile,$(firstword $(MAKEFILE_LIST))),-f $(firstword $(MAKEFILE_LIST)))
STARTUP_CC ?= $(CC)
STARTUP_LINKER ?= gnu-ld
STARTUP_LDFLAGS ?= $(LDFLAGS)
STARTUP_CHECK_TOLERANCE ?= 5
STARTUP_PLACEMENT ?= head
STARTUP_READ_AHEAD_KB ?=
STARTUP_DEPORDER ?= $(firstword $(wildcard $(LINKOPT)/deporder/deporder $(LINKOPT)/bin/deporder $(LINKOPT)/../../../bin/deporder \
	$(LINKOPT)/../deporder/deporder) deporder)
STARTUP_PAGEIN ?= $(firstword $(wildcard $(LINKOPT)/pagein/pagein $(LINKOPT)/bin/pagein $(LINKOPT)/../../../bin/pagein \
	$(LINKOPT)/../pagein/pagein) pagein)
STARTUP_REPORT ?= $(firstword $(wildcard $(LINKOPT)/pagein/pagein-report $(LINKOPT)/bin/pagein-report $(LINKOPT)/../../../bin/pagein-report \
	$(LINKOPT)/../pagein/pagein-report) pagein-report)
STARTUP_PREFETCH ?= $(firstword $(wildcard $(LINKOPT)/prefetch/linkopt-prefetch.o $(LINKOPT)/lib/linkopt/linkopt-prefetch.o \
	$(LINKOPT)/../../../lib/linkopt/linkopt-prefetch.o $(LINKOPT)/../prefetch/linkopt-prefetch.o))
STARTUP_LINKERS = gnu-ld gold lld mold
startup_goals := $(filter startup startup-report startup-check startup-pgo,$(MAKECMDGOALS))

ifeq ($(filter $(STARTUP_LINKERS),$(STARTUP_LINKER)),)
$(error mk/startup.mk: STARTUP_LINKER = $(STARTUP_LINKER): not one of $(STARTUP_LINKERS))
endif
ifeq ($(filter head cold-start,$(STARTUP_PLACEMENT)),)
$(error mk/startup.mk: STARTUP_PLACEMENT = $(STARTUP_PLACEMENT): not head or cold-start)
endif
ifneq ($(STARTUP_READ_AHEAD_KB),)
ifeq ($(shell expr '$(STARTUP_READ_AHEAD_KB)' : '[0-9][0-9]*$$'),0)
$(error mk/startup.mk: STARTUP_READ_AHEAD_KB = $(STARTUP_READ_AHEAD_KB): not a number of KiB)
endif
endif
# a linker that cannot take the order's option is refused before anything
# runs (Debian 12's mold 1.10 has no --symbol-ordering-file)
startup_comma := ,
startup_linker_option.gold = --section-ordering-file
startup_linker_option.lld = --symbol-ordering-file
startup_linker_option.mold = --symbol-ordering-file
ifneq ($(filter startup startup-pgo,$(MAKECMDGOALS)),)
ifneq ($(STARTUP_LINKER),gnu-ld)
ifeq ($(findstring $(startup_linker_option.$(STARTUP_LINKER)),$(shell ld.$(STARTUP_LINKER) --help 2> /dev/null)),)
startup_linker_program := ld.$(STARTUP_LINKER)
startup_linker_version = $(wordlist 1,2,$(shell $(startup_linker_program) --version 2> /dev/null))
$(error mk/startup.mk: STARTUP_LINKER = $(STARTUP_LINKER): $(if $(shell command -v $(startup_linker_program)),$(strip \
	$(startup_linker_program)) ($(startup_linker_version)) has no \
	$(startup_linker_option.$(STARTUP_LINKER)) option$(startup_comma) so it cannot link with an order: use another \
	linker$(startup_comma) or a $(STARTUP_LINKER) that has it,$(startup_linker_program) is not installed))
endif
endif
endif
ifeq ($(filter grouped-target,$(.FEATURES)),)
$(error mk/startup.mk: needs GNU make 4.3 or later (grouped targets); this is make $(MAKE_VERSION))
endif
ifneq ($(startup_goals),)
ifneq ($(PGO_RUN_CFLAGS),)
$(error mk/startup.mk: make $(startup_goals) inside a pgo-run build would trace and order an instrumented \
	build: make startup-pgo runs pgo-run first, then make startup)
endif
endif

# STARTUP_RUN as run, with STARTUP_PROGRAM set for the target; refused
# when it does not name the program (a ":=" assignment, or a path typed in).
startup_run_refused = mk/startup.mk: STARTUP_RUN does not name the program: write $$(STARTUP_PROGRAM) \
	where it runs it, as in STARTUP_RUN = $$(STARTUP_PROGRAM) --version (set with =, not :=)
startup_run = $(if $(findstring $(STARTUP_PROGRAM),$(1)),$(1),$(error $(startup_run_refused)))

# Each output OUT (the program, each library) has: startup_inputs.OUT,
# startup_flags.OUT, startup_libs.OUT, startup_run.OUT (the name of its
# run's variable), startup_host.OUT and startup_libdir.OUT (a library's).
# $(call startup_link,OUT,WRITES,INPUTS): the link of OUT, writing WRITES.
startup_link = $(STARTUP_CC) $(STARTUP_LDFLAGS) $(startup_flags.$1) -o $2 $3 $(startup_libs.$1)
# $(call startup_inputs_of,OUT,$+): OUT's inputs as make found them
# (through VPATH too), duplicates kept: they come first in the rules.
startup_inputs_of = $(wordlist 1,$(words $(startup_inputs.$1)),$2)
# $(call startup_recorded_inputs,OUT): the inputs OUT's order was made
# from, as make found them then; make startup-check brings nothing up to
# date (the project's rules would relink the outputs without the order).
startup_recorded_inputs = $(if $(wildcard $1.record),$(shell sed -n 's/^inputs //p' $1.record))
# the linker and the placement, as the record keeps them: gnu-ld, or
# gnu-ld/cold-start
startup_layout = $(STARTUP_LINKER)$(if $(filter cold-start,$(STARTUP_PLACEMENT)),/cold-start)
# $(call startup_order_file,OUT): OUT's order, one per linker and placement
# (OUT.gnu-ld.order, OUT.gnu-ld.cold-start.order)
startup_order_file = $1.$(subst /,.,$(startup_layout)).order
# deporder's options for the order: its form, the placement
startup_deporder_flags = --granularity=section --emit=$(STARTUP_LINKER) --placement=$(STARTUP_PLACEMENT) \
	$(if $(STARTUP_READ_AHEAD_KB),--read-ahead-kb=$(STARTUP_READ_AHEAD_KB))
startup_order_flags.gnu-ld = $(STARTUP_PREFETCH) -Wl,-T,$1
startup_order_flags.gold = -fuse-ld=gold -Wl,--section-ordering-file,$1
startup_order_flags.lld = -fuse-ld=lld -Wl,--symbol-ordering-file,$1 -Wl,--no-warn-symbol-ordering
startup_order_flags.mold = -fuse-ld=mold -Wl,--symbol-ordering-file,$1

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
startup_libdir.$(STARTUP_DSO_$1) := $(STARTUP_DSO_$1).libdir
endef
$(foreach d,$(STARTUP_DSOS),$(if $(strip $(STARTUP_DSO_$d)),\
	$(if $(strip $(STARTUP_DSO_$d_INPUTS)),,$(call startup_said,STARTUP_DSO_$d_INPUTS is empty: name the files the link of $(STARTUP_DSO_$d) reads))\
	$(if $(strip $(STARTUP_DSO_$d_HOST)),,$(call startup_said,STARTUP_DSO_$d_HOST is empty: name the program that loads $(STARTUP_DSO_$d)))\
	$(eval $(call startup_dso_variables,$d)),\
	$(call startup_said,STARTUP_DSO_$d is empty: name the library $d's link writes)))
ifneq ($(startup_goals),)
ifeq ($(strip $(startup_outputs)),)
$(call startup_said,nothing to order: set STARTUP_PROG or STARTUP_DSOS)
endif
ifneq ($(startup_problem),)
$(error mk/startup.mk: $(startup_problem))
endif
endif
# The hosts the libraries are traced through: the project's rules that
# make them run before any relink, which replaces a file in place.
startup_hosts := $(sort $(foreach o,$(startup_outputs),$(startup_host.$o)))

# $(call startup_rules,OUT): the rules of one output.  The program runs
# OUT.default, then OUT; a library's host runs with OUT.libdir/default,
# then OUT.libdir/ordered, first on LD_LIBRARY_PATH.
define startup_rules
$1.default $1.map &: $(startup_inputs.$1)
	$(if $(STARTUP_PGO),$$(startup_sh) pgo-built $1 $$+)
	$$(call startup_link,$1,$1.default,$$+) -Wl,-Map=$1.map
	$(if $(startup_libdir.$1),$$(startup_sh) libdir $1.default $(startup_libdir.$1)/default)

$1.trace: private STARTUP_PROGRAM = $(abspath $(or $(startup_host.$1),$1.default))
$1.trace: $1.default $(startup_host.$1)
	$$(startup_sh) trace $$(STARTUP_PAGEIN) $$@ $1.default '$(addsuffix /default,$(startup_libdir.$1))' -- \
		$$(call startup_run,$$($(startup_run.$1)))

$$(call startup_order_file,$1): $(startup_inputs.$1) $1.trace $1.map
	$$(STARTUP_DEPORDER) -q $$(startup_deporder_flags) --trace $1.trace --map $1.map --out $$@ \
		--cc -- $$(call startup_link,$1,$1,$$(call startup_inputs_of,$1,$$+))

$1.record: private STARTUP_PROGRAM = $(abspath $(or $(startup_host.$1),$1))
$1.record: $(startup_inputs.$1) $$(call startup_order_file,$1) startup-force | $(startup_hosts)
	$$(call startup_link,$1,$1.linkopt-tmp,$$(call startup_inputs_of,$1,$$+)) \
		$$(call startup_order_flags.$$(STARTUP_LINKER),$$(call startup_order_file,$1))
	$$(startup_sh) replace $1.linkopt-tmp $1 $$(call startup_inputs_of,$1,$$+)
	$$(startup_sh) ordered $$@ $1 $$(startup_layout) '$$(call startup_inputs_of,$1,$$+)' $$(STARTUP_REPORT) \
		$1.default $1.trace $1.after.trace $$(STARTUP_PAGEIN) '$(addsuffix /ordered,$(startup_libdir.$1))' -- \
		$$(call startup_run,$$($(startup_run.$1)))

startup-report-$1: startup-force $1.record
	$$(STARTUP_REPORT) $1.trace $1.after.trace

startup-check-$1: private STARTUP_PROGRAM = $(abspath $(or $(startup_host.$1),$1))
startup-check-$1: startup-force
	$$(startup_sh) check-record $1.record $1 $$(startup_layout) $1.default
	$$(startup_sh) check-order $1 $1.check.order $$(call startup_order_file,$1) -- $$(STARTUP_DEPORDER) -q \
		$$(startup_deporder_flags) --trace $1.trace --map $1.map --out $1.check.order \
		--cc -- $$(call startup_link,$1,$1,$$(call startup_recorded_inputs,$1))
	$$(startup_sh) check-pages $1.record $1 $$(STARTUP_REPORT) $$(STARTUP_CHECK_TOLERANCE) $1.check.trace \
		$$(STARTUP_PAGEIN) '$(addsuffix /ordered,$(startup_libdir.$1))' -- $$(call startup_run,$$($(startup_run.$1)))

startup-clean-$1: startup-force
	rm -f $1.default $1.map $1.trace $(foreach l,$(STARTUP_LINKERS),$1.$l.order $1.$l.cold-start.order) $1.after.trace $1.record \
		$1.linkopt-tmp $1.check.order $1.check.trace $1.trace.tmp $1.after.trace.tmp $1.check.trace.tmp \
		$1.record.tmp
	$(if $(startup_libdir.$1),rm -rf $(startup_libdir.$1))

.PHONY: startup-report-$1 startup-check-$1 startup-clean-$1
endef
$(foreach o,$(startup_outputs),$(eval $(call startup_rules,$o)))

startup: $(addsuffix .record,$(startup_outputs))

startup-report: $(addprefix startup-report-,$(startup_outputs))

startup-check: $(addprefix startup-check-,$(startup_outputs))

startup-clean: $(addprefix startup-clean-,$(startup_outputs))

# pgo-run's optimized build, then the order of what it built: make must
# have nothing left to rebuild among the inputs, and with STARTUP_PGO set
# every object the default links read that records its options (pgo-run
# has every build record them) must have been compiled with -fprofile-use.
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
