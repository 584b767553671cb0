# mk/pgo.mk: include from a project's Makefile so that pgo-run can build it
# instrumented and optimized:  include path/to/mk/pgo.mk
# pgo-run runs make PGO_CFLAGS='…' PGO_LDFLAGS='…'; override keeps the
# project's own CFLAGS and LDFLAGS (set in the Makefile or on the command
# line) and appends the profile flags to them.
PGO_CFLAGS ?=
PGO_LDFLAGS ?=
override CFLAGS += $(PGO_CFLAGS)
override LDFLAGS += $(PGO_LDFLAGS)
