#!/bin/bash
# pfstat --compare splits its command into words as sh would, quotes and
# backslashes included, and runs it directly; a line that needs a shell is
# refused (exit status 2, the message says what and how to compare shell
# lines) rather than run otherwise than the first command.  Each command is
# shown as a line sh reads as the same words.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pfstat-lib.sh"
pfstat_setup

printf '%s\n' '[a b]' '[c "d]' '[e f]' "[it's]" '[]' > want
run_ok words.out "$PF" --show-output --compare "./probe args 'a b' \"c \\\"d\" e\\ f \"it's\" ''" -- ./probe lines < /dev/null
sed -n 2,6p words.out > words.args
expect_same want words.args "the words of the --compare command"
expect_grep "^  against: \\./probe args 'a b' 'c \"d' 'e f' 'it'\\\\''s' '' \\(1 run each, alternating\\)$" words.out \
	"the --compare command as a line"

# the first command's words, quoted alike
run_ok first.out "$PF" -- sh -c 'exit 0; echo "$1"' arg
expect_grep "^pfstat: sh -c 'exit 0; echo \"\\\$1\"' arg \(1 run\)$" first.out "the first command as a line"

for line in './probe lines | cat' './probe lines > out' 'X=1 ./probe lines' './probe $HOME' './probe *' \
	"./probe \"\$(id)\"" './probe lines; true' '~/probe'; do
	expect_exit 2 refused.out "$PF" --compare "$line" -- ./probe lines
	expect_grep "^pfstat: --compare: '.*' holds .*: pfstat runs each command directly, as it runs the first one, never through a shell; to measure shell lines, give both as sh -c '...'$" refused.out.err "the refusal of $line"
done
expect_exit 2 open.out "$PF" --compare "./probe 'lines" -- ./probe lines
expect_grep "^pfstat: --compare: '\./probe 'lines': a ' is not closed$" open.out.err "an unclosed quote"
expect_exit 2 empty.out "$PF" --compare "  " -- ./probe lines
expect_grep "^pfstat: --compare: an empty command$" empty.out.err "an empty command"
exit 0
