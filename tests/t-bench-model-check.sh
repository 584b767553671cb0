#!/bin/bash
# bench/lib/model-check.awk, bench/best/run's line "model against
# measured": it counts the figures of the table's rows, not its header.
# Before, the header ("  layout  code code cold cold ...") was counted as
# two figures that agreed ("cold" - "cold" is 0 in awk): every saved
# result said two figures more than its table has (28 of 28 for SQLite's
# 13 rows).  Here a table of a plain row, two candidates (one 10 pages
# off on its training figure, one without held-out figures), a failed
# candidate and the lines around a table: 4 of 5 figures, the largest
# difference 10.0 pages on off's training figure; only the last build's
# table counts.
. "$(dirname "$0")/lib.sh"

cat > results.txt <<'EOF2'
== an earlier build, split a (2026-12-06, commit 0000000)
  layout                               code   code   cold   cold   cold   cold  steady   cost
  plain (the default link)              7.0      -   66.0   99.0      -      -  1.000x     9s
== a program, split a (2026-12-06, commit 0000000)
   --workload=./prog a
  layout                               code   code   cold   cold   cold   cold  steady   cost
                                      train   held  model   meas  model   meas               
                                                    train  train   held   held               
  plain (the default link)              7.0    8.0   66.0   66.0   70.0   70.0  1.000x     9s
* data-first                            2.0    3.0   44.0   44.0   48.0   49.0  1.012x     9s
  off                                   3.0      -   56.0   46.0      -      -  0.978x     9s
  broken                                  -      -      -      -      -      -       -     2s  (prog: linkopt-bolt failed)
(code: code pages touched; ...)
chosen: data-first: 44.0 file pages read ...
(wall time of the whole search: 36 s)
EOF2
run_ok got.txt awk -f "$TOP/bench/lib/model-check.awk" results.txt
expect_grep '^  model against measured: 4 of 5 figures within 2% or 4 pages; largest difference 10\.0 pages \(21\.7%\), off \(train\)$' got.txt
exit 0
