# mk/pgo.mk: include from a project's Makefile (anywhere in it) for
#   make pgo PGO_WORKLOADS='./train.sh ...'
# which runs pgo-run on this Makefile: an instrumented build, the
# workloads, the merged profile, and the optimized build.  Its build
# command is `make` (`make TARGET` with PGO_TARGET), the configuration a
# plain `pgo-run status` looks at (it was `make ` with a blank, another).  pgo-run adds
# its flags through its compiler wrapper, so the fragment changes none of
# the project's variables: CFLAGS ?= -O3 and the like keep their meaning,
# and a plain `make` is the project's own build.
#   LINKOPT        linkopt's build tree (unset: found from the fragment's
#                  folder, in the tree or in PREFIX/share/linkopt/mk)
#   PGO_WORKLOADS  the training commands (required)
#   PGO_TARGET     what to build (default: the Makefile's default goal)
#   PGO_FLAGS      more pgo-run options (--bench CMD --bench-program FILE, ...)
LINKOPT ?= $(dir $(lastword $(MAKEFILE_LIST))).
PGO_RUN ?= $(firstword $(wildcard $(LINKOPT)/pgo-run/pgo-run $(LINKOPT)/bin/pgo-run \
	$(LINKOPT)/../../../bin/pgo-run $(LINKOPT)/../pgo-run/pgo-run) pgo-run)
PGO_TARGET ?=
PGO_FLAGS ?=

_pgo_default_goal := $(.DEFAULT_GOAL)
# the project's Makefile when make was given another (-f), for pgo-run's builds
_pgo_makefile := $(if $(filter-out Makefile makefile GNUmakefile,$(firstword $(MAKEFILE_LIST))), -f $(firstword $(MAKEFILE_LIST)))

pgo:
	@test -n "$(PGO_WORKLOADS)" || { echo "mk/pgo.mk: set PGO_WORKLOADS, the training commands" >&2; exit 2; }
	$(PGO_RUN) --build '$(strip $(MAKE)$(_pgo_makefile) $(PGO_TARGET))' --clean '$(MAKE)$(_pgo_makefile) clean' $(PGO_FLAGS) \
		$(PGO_WORKLOADS)

.PHONY: pgo
# the project's first target stays the default goal, wherever the include is
.DEFAULT_GOAL := $(_pgo_default_goal)
