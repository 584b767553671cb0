# report: linkopt, the toolkit's front-end, and its report subcommand (an
# HTML page of the pages start-up touches, before and after an order).
REPORT_OBJS = report/main.o report/model.o report/html.o report/figures.o
PROGS += report/linkopt
BIN_PROGS += report/linkopt
MAN1 += report/linkopt.1 report/linkopt-report.1
OBJS += $(REPORT_OBJS)

report/linkopt: $(REPORT_OBJS) $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)

clean::
	rm -f report/linkopt

# make check's report test loads the page in a real browser: Debian's
# chromium, installed where need-deps may install (as root); elsewhere the
# test says it is skipped and why.
check: report-deps
report-deps:
	-@scripts/need-deps '$(CC)' bin:chromium=chromium

.PHONY: report-deps
