#!/bin/bash
# Every program and every subcommand answers --help, -h and --version with
# exit 0, and refuses an unknown option and a valued option without its
# value with exit 2, the message first and "Try 'NAME --help'" after it.
# Each valued option listed in a --help text is then given in both forms,
# --name VALUE and --name=VALUE: the two runs must behave alike (status,
# stdout, stderr), and neither may be refused for the option itself; and
# the program's man page must describe every option its --help lists.
# The options --help lists keep the vocabulary written in lib/cli.h: the
# file a program writes is -o/--output FILE (deporder alone writes to --out
# FILE), --output always takes FILE, a read-ahead is --read-ahead-kb N, a
# --no-FOO option takes no value, no yes|no values but pagein's, and -o -q
# -v -h are --output --quiet --verbose --help; every old spelling is still
# taken and not listed.
. "$(dirname "$0")/lib.sh"

# program path|name as its messages and --help show it|subcommand or empty|
# its man page
programs="$TOP/deporder/deporder|deporder||deporder/deporder.1
$TOP/pagein/pagein|pagein||pagein/pagein.1
$TOP/pagein/pagein-report|pagein-report||pagein/pagein.1
$TOP/cygtrace/cygtrace-resolve|cygtrace-resolve||cygtrace/cygtrace.1
$TOP/likely-check/likely-check|likely-check||likely-check/likely-check.1
$TOP/likely-check/likely-check|likely-check|cflags|likely-check/likely-check.1
$TOP/likely-check/likely-check|likely-check|ldflags|likely-check/likely-check.1
$TOP/likely-check/likely-check|likely-check|run|likely-check/likely-check.1
$TOP/likely-check/likely-check|likely-check|report|likely-check/likely-check.1
$TOP/likely-check/likely-check|likely-check|compare|likely-check/likely-check.1
$TOP/likely-check/likely-check|likely-check|profile|likely-check/likely-check.1
$TOP/likely-check/likely-check|likely-check|macros|likely-check/likely-check.1
$TOP/pgo-run/pgo-run|pgo-run||pgo-run/pgo-run.1
$TOP/pgo-run/pgo-run|pgo-run|build|pgo-run/pgo-run.1
$TOP/pgo-run/pgo-run|pgo-run|status|pgo-run/pgo-run.1
$TOP/pgo-run/pgo-run|pgo-run|show|pgo-run/pgo-run.1
$TOP/pgo-run/pgo-run|pgo-run|clean|pgo-run/pgo-run.1
$TOP/pgo-run/pgo-run|pgo-run|merge|pgo-run/pgo-run.1
$TOP/linkopt-bolt/linkopt-bolt|linkopt-bolt||linkopt-bolt/linkopt-bolt.1
$TOP/pfstat/pfstat|pfstat||pfstat/pfstat.1
$TOP/linkopt-report/linkopt|linkopt||linkopt-report/linkopt.1
$TOP/linkopt-report/linkopt|linkopt|report|linkopt-report/linkopt-report.1
$TOP/linkopt-startup/linkopt-startup|linkopt-startup||linkopt-startup/linkopt-startup.1
$TOP/linkopt-cc/linkopt-cc|linkopt-cc||linkopt-startup/linkopt-startup.1"

# A value of each kind the --help texts name, valid for the option.
sample() {
	case $1 in
	SYM) echo main ;;
	FILE|MAP|TRACE) echo no-such-file ;;
	UNIT\|SYM) echo main ;;
	GLOB) echo '*' ;;
	N) echo 4096 ;;
	P) echo 50 ;;
	W) echo 2 ;;
	DIR) echo . ;;
	NAME) echo prog ;;
	CC) echo gcc ;;
	FLAGS) echo -DX ;;
	CMD) echo true ;;
	W:WORKLOAD) echo 2:true ;;
	W:DIR) echo 2:. ;;
	TRACE\[:W\]|FILE\[:W\]) echo no-such-file ;;
	OPTION) echo -v=0 ;;
	KB) echo 128 ;;
	MS) echo 100 ;;
	S) echo 1 ;;
	SECONDS) echo 10 ;;
	PID) echo 4000000000 ;;
	PROGRAM) echo llvm-bolt-16 ;;
	COMMAND) echo true ;;
	TIME) echo 5ms ;;
	TEXT) echo title ;;
	LINE) echo true ;;
	PERCENT) echo 5 ;;
	*\|*) echo "${1%%|*}" ;;
	*) return 1 ;;
	esac
}

option_error='unrecognized option|needs a value|takes no value|: '"'"'[^'"'"']*'"'"' is not '

# run NAME ARGS...: runs the program, leaving status, its output in
# out.raw and err.raw, and in $out and $err (and the files out and err)
# with times, pids and counts (a command that runs a step reports them) as
# N; $err1 is the first line of $err.  Bash alone: this test runs about
# 450 commands, and a process more for each costs seconds.
norm() { # TEXT: REPLY is TEXT with each number N (sed's s/[0-9]+(\.[0-9]+)?/N/g)
	local s=$1 r=
	while [[ $s =~ ^([^0-9]*)([0-9]+(\.[0-9]+)?)(.*)$ ]]; do
		r+=${BASH_REMATCH[1]}N
		s=${BASH_REMATCH[4]}
	done
	REPLY=$r$s
}
run() {
	status=0
	"$@" > out.raw 2> err.raw < /dev/null || status=$?
	IFS= read -r -d '' out < out.raw || true
	IFS= read -r -d '' err < err.raw || true
	norm "$out"; out=$REPLY
	norm "$err"; err=$REPLY
	printf '%s' "$out" > out
	printf '%s' "$err" > err
	err1=${err%%$'\n'*}
}

# in_man OPTION: the man page ($man) names OPTION (roff writes - as \-).
in_man() {
	[[ $man == *"${1//-/\\-}"* ]]
}

checks=0
: > all-listed
while IFS='|' read -r path name sub manpage; do
	[[ -x $path ]] || fail "$path is not built (run make)"
	full=$name${sub:+ $sub}
	IFS= read -r -d '' man < "$TOP/$manpage" || true
	args=(${sub:+"$sub"})

	for help in --help -h; do
		run "$path" "${args[@]}" "$help"
		((status == 0)) || fail "$full $help: exit status $status"
		head -n 1 out | grep -q "^usage: $name " || fail "$full $help: the first line is not 'usage: $name ...': $(head -n 1 out)"
		[[ -s err ]] && fail "$full $help: wrote on stderr: $(head -n 2 err)"
		checks=$((checks + 1))
	done
	run "$path" "${args[@]}" --version
	((status == 0)) || fail "$full --version: exit status $status"
	grep -qxF "$name (linkopt) $(cat "$TOP/VERSION")" out.raw || fail "$full --version: printed '$(head -n 1 out.raw)', not VERSION's"

	run "$path" "${args[@]}" --no-such-option
	((status == 2)) || fail "$full --no-such-option: exit status $status, not 2"
	[[ $err1 == "$name: unrecognized option '--no-such-option'" ]] ||
		fail "$full --no-such-option: the message is '$err1'"
	line2=${err#*$'\n'} line2=${line2%%$'\n'*}
	[[ $line2 == "Try '$full --help' for more information." ]] ||
		fail "$full --no-such-option: the second line is '$line2'"
	checks=$((checks + 2))

	# The valued options of the --help text: "--name VALUE" or "--name=A|B".
	run "$path" "${args[@]}" --help

	# The option vocabulary of lib/cli.h, over the options --help lists
	# (a line "  -o, --name VALUE" or "      --name=A|B"): one line of
	# "SHORT NAME VALUE" each, SHORT and VALUE "-" when there is none.
	sed -nE 's/^  (-([a-zA-Z]), |    )(--[a-z][a-z-]*)([ =]([^ ]+))?( .*)?$/\2\t\3\t\5/p' out.raw |
		awk -F'\t' '{ print ($1 == "" ? "-" : $1), $2, ($3 == "" ? "-" : $3) }' > listed
	cat listed >> all-listed
	: > vocabulary
	while read -r short option value; do
		case $option in
		--out | --out-file)
			[[ $name == deporder && $option == --out && $value == FILE ]] ||
				echo "$option $value: the file a program writes is -o/--output FILE (--out FILE is deporder's alone)" ;;
		--output)
			[[ $short == o && $value == FILE ]] || echo "--output $value (short '$short'): --output is -o/--output FILE, the file the program writes"
			[[ $name == deporder ]] && echo "--output: deporder's -o and --output are ld's (it writes to --out FILE)" ;;
		*readahead* | *read-ahead* | *read_ahead*)
			[[ $option == *--read-ahead-kb || $option == *-read-ahead-kb ]] && [[ $value == N ]] ||
				echo "$option $value: a read-ahead is --read-ahead-kb N (or --SOMETHING-read-ahead-kb N), in KiB" ;;
		--no-*)
			[[ $value == - ]] || echo "$option $value: a --no-FOO option is a flag, with no value" ;;
		esac
		case $value in
		*yes\|no* | *no\|yes* | *on\|off* | *true\|false*)
			[[ $name == pagein ]] || echo "$option=$value: a boolean is a flag (--foo, --no-foo), not a yes|no value (pagein's valgrind options alone)" ;;
		esac
		case $short in
		o) [[ $option == --output ]] || echo "-o, $option: -o is --output" ;;
		q) [[ $option == --quiet ]] || echo "-q, $option: -q is --quiet" ;;
		v) [[ $option == --verbose ]] || echo "-v, $option: -v is --verbose" ;;
		h) [[ $option == --help ]] || echo "-h, $option: -h is --help" ;;
		esac
	done < listed > vocabulary
	# The synopsis too (a program's covers the options of its fallback
	# command, pgo-run's WORKLOAD form): no old spelling there either.
	sed -n '1,/^$/p' out.raw | grep -oE -- '--[a-z][a-z-]*' | sort -u > synopsis
	grep -xE -- '--out-file|--device-readahead|--read-ahead|--readahead' synopsis >> vocabulary || true
	[[ $name == deporder ]] || grep -xF -- '--out' synopsis >> vocabulary || true
	expect_empty vocabulary "$full: options against the vocabulary of lib/cli.h"
	checks=$((checks + 1))
	grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' out | sed -E 's/^ +(-[a-zA-Z], )?//' | while read -r option; do
		in_man "$option" || echo "$option"
	done > undocumented
	[[ -s undocumented ]] && fail "$full: options not in the man page $manpage: $(tr '\n' ' ' < undocumented)"
	grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z-]*[ =][^ ]+' out | sed -E 's/^ +(-[a-zA-Z], )?//' > valued || true
	while read -r form; do
		option=${form%%[ =]*}
		in_man "$option" || fail "$full $option: not in the man page $manpage"
		value_name=${form#*[ =]}
		value=$(sample "$value_name") || fail "$full $option: no sample for value '$value_name' (add one to this test)"
		run "$path" "${args[@]}" "$option"
		((status == 2)) || fail "$full $option (no value): exit status $status, not 2"
		[[ $err1 == "$name: option '$option' needs a value"* ]] ||
			fail "$full $option (no value): the message is '$err1'"
		run "$path" "${args[@]}" "$option" "$value"
		space_out=$out space_err=$err space_status=$status
		run "$path" "${args[@]}" "$option=$value"
		((status == space_status)) || fail "$full: '$option $value' exits $space_status, '$option=$value' exits $status"
		if [[ $out != "$space_out" ]]; then
			printf '%s' "$space_out" > space.out
			# what each run said, for the cause
			printf 'stderr of the space form:\n%s\nstderr of the = form:\n%s\n' "$space_err" "$err" >&2
			expect_same space.out out "stdout of $full $option=$value (against the space form)"
		fi
		if [[ $err != "$space_err" ]]; then
			printf '%s' "$space_err" > space.err
			expect_same space.err err "stderr of $full $option=$value (against the space form)"
		fi
		[[ $err1 =~ $option_error ]] && fail "$full $option $value: refused for the option: $err1"
		checks=$((checks + 3))
	done < valued
done <<< "$programs"
grep -q '^h --help -$' all-listed || fail "no -h, --help found in any --help (the extraction of the options is broken)"
grep -q '^o --output FILE$' all-listed || fail "no -o, --output FILE found in any --help (the extraction of the options is broken)"

# Every old spelling of a renamed option is still taken (a hidden alias:
# not listed, but accepted): the program, its arguments with the old
# spelling, and --help after them must exit 0.  And it is not listed.
aliases="$TOP/pagein/pagein|--out-file t.trace
$TOP/linkopt-report/linkopt|report --out report.html
$TOP/likely-check/likely-check|profile --out p.data
$TOP/likely-check/likely-check|macros --out m.data
$TOP/pfstat/pfstat|--device-readahead 128
$TOP/pfstat/pfstat|--output
$TOP/pgo-run/pgo-run|build --output prog
$TOP/linkopt-startup/linkopt-startup|--output prog"
while IFS='|' read -r path words; do
	read -ra argv <<< "$words"
	run "$path" "${argv[@]}" --help
	((status == 0)) || fail "${path##*/} $words: the old spelling is refused (exit status $status): $(head -n 1 err)"
	for w in "${argv[@]}"; do
		[[ $w == --* ]] || continue
		! grep -qE -- "^ +(-[a-zA-Z], )?$w([ =]|\$)" out.raw || fail "${path##*/} $words: the old spelling $w is listed in --help"
	done
	checks=$((checks + 1))
done <<< "$aliases"
echo "$checks checks"
