#!/bin/bash
# tests/run's report: a passing, a failing and a skipped test (in a copy
# of the runner, beside its lib.sh) give PASS, FAIL with the test's output,
# SKIP with its reason, then a passing test's note and the failure again
# in one line next to the count (a CI log cut in the middle keeps its
# end), the count, and exit 1.
. "$(dirname "$0")/lib.sh"
mkdir t
cp "$TESTDIR/run" "$TESTDIR/lib.sh" t/
printf '#!/bin/bash\n. "$(dirname "$0")/lib.sh"\nnote "the model was 19 pages over"\nexit 0\n' > t/t-a.sh
printf '#!/bin/bash\n. "$(dirname "$0")/lib.sh"\necho some output\nfail "the figure was 3, not 4"\n' > t/t-b.sh
printf '#!/bin/bash\n. "$(dirname "$0")/lib.sh"\nskip "not here"\n' > t/t-c.sh
chmod +x t/*.sh t/run
expect_exit 1 report.out t/run -j 2
expect_grep '^PASS t-a$' report.out
expect_grep '^FAIL t-b$' report.out
expect_grep '^    some output$' report.out
expect_grep '^SKIP t-c: not here$' report.out
tail -n 3 report.out > tail.out
printf 'noted: t-a: the model was 19 pages over\nfailed: t-b: the figure was 3, not 4\n1 passed, 1 failed, 1 skipped\n' > want.out
expect_same want.out tail.out "the last three lines"
exit 0
