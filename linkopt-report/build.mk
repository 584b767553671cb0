# linkopt-report: linkopt, the toolkit's front-end, and its report subcommand (an
# HTML page of the pages start-up touches, before and after an order).
REPORT_OBJS = linkopt-report/main.o linkopt-report/model.o linkopt-report/html.o linkopt-report/figures.o
PROGS += linkopt-report/linkopt
BIN_PROGS += linkopt-report/linkopt
MAN1 += linkopt-report/linkopt.1 linkopt-report/linkopt-report.1
OBJS += $(REPORT_OBJS)

linkopt-report/linkopt: $(REPORT_OBJS) $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS_ELF)

clean::
	rm -f linkopt-report/linkopt

# make check's report test loads the page in a real browser: Debian's
# chromium, which make deps installs; without it the test says it is
# skipped and why.
TEST_DEPS += bin:chromium=chromium
