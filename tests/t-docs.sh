#!/bin/bash
# The documentation says what is there: README.md stays a guide (under 200
# lines) that links every man page; every file a Markdown link of
# README.md, docs/ and bench/ points at exists; every `make` target and
# every script or test the README, docs/ and bench/RESULTS.md name in
# their commands exists; every figure bench/RESULTS.md (and a measured
# section of the README or docs/) quotes is in the saved output it names
# (bench/results-check); .ci/run runs commands the README names; and
# every man page is clean under groff -ww -man.
. "$(dirname "$0")/lib.sh"
need groff git awk
git -C "$TOP" rev-parse --is-inside-work-tree > /dev/null 2>&1 ||
	skip "needs a git checkout: bench/results-check reads figures at the commits RESULTS.md names"

docs=("$TOP/README.md" "$TOP"/docs/*.md "$TOP/bench/RESULTS.md" "$TOP/bench/README.md")
for f in "${docs[@]}"; do
	[[ -f $f ]] || fail "no ${f#"$TOP"/}"
done

# README.md is a guide: short.
lines=$(wc -l < "$TOP/README.md")
((lines < 200)) || fail "README.md has $lines lines: a guide stays under 200 (reference text goes to the man pages, figures to bench/RESULTS.md)"

# Every relative link points at a file or folder that exists.
for f in "${docs[@]}"; do
	dir=$(dirname "$f")
	grep -o '\]([^)#]*' "$f" | sed 's/^](//' | while read -r target; do
		case $target in
		'' | http://* | https://* | mailto:*) continue ;;
		esac
		[[ -e $dir/$target ]] || echo "${f#"$TOP"/}: links to '$target', which does not exist"
	done
done > links.out
expect_empty links.out "links to missing files"

# The README links every man page of the tree, and only those.
# (files two levels down: cache/ holds fetched sources, folders among them)
(cd "$TOP" && find . -mindepth 2 -maxdepth 2 -type f \( -name '*.1' -o -name '*.7' \) ! -path './cache/*' ! -path './.git/*' |
	sed 's|^\./||') | sort > pages.want
[[ -s pages.want ]] || fail "no man page found (the search is broken)"
grep -o '\]([^)]*\.[17])' "$TOP/README.md" | sed 's/^](//; s/)$//' | sort -u > pages.got
expect_same pages.want pages.got "the man pages the README links (--- the tree's, +++ the README's)"

# .ci/run runs the README's test commands, and the README names each
# command CI runs: a line of .ci/run (but the shell's own set and cd) is a
# code span or a code block's command of README.md.
[[ -f $TOP/.ci/run ]] || fail "no .ci/run"
grep -vE '^[[:space:]]*(#|$|set |cd )' "$TOP/.ci/run" > ci.commands
[[ -s ci.commands ]] || fail ".ci/run runs no command (the extraction is broken)"
awk '
/^```/ { fence = !fence; next }
fence || /^(    |\t)/ { sub(/^[ \t]+/, ""); sub(/[ \t]*#.*/, ""); print; next }
{
	s = $0
	while (match(s, /`[^`]+`/)) {
		print substr(s, RSTART + 1, RLENGTH - 2)
		s = substr(s, RSTART + RLENGTH)
	}
}' "$TOP/README.md" | sort -u > readme.commands
grep -vxF -f readme.commands ci.commands > ci.unnamed || true
expect_empty ci.unnamed "the commands of .ci/run that README.md does not name"
grep -qxF 'make check' readme.commands || fail "README.md does not name 'make check'"

# The guides use the option vocabulary of lib/cli.h, not the old spellings
# (which the man pages name once, as still taken); bench/RESULTS.md keeps
# its commands as they were run.
grep -nE -- '--out-file|--device-readahead|likely-check (profile|macros)[^`]* --out |pfstat[^`]* --output|pgo-run[^`]* --output|linkopt-startup[^`]* --output' \
	"$TOP/README.md" "$TOP"/docs/*.md "$TOP/bench/README.md" > old-spellings || true
expect_empty old-spellings "old option spellings in README.md, docs/ and bench/README.md"

# The commands of the documents: code blocks (fenced or indented) and code spans.
awk '
/^```/ { fence = !fence; next }
fence || /^(    |\t)/ { print FILENAME "\t" FNR "\t" $0; next }
{
	s = $0
	while (match(s, /`[^`]+`/)) {
		print FILENAME "\t" FNR "\t" substr(s, RSTART + 1, RLENGTH - 2)
		s = substr(s, RSTART + RLENGTH)
	}
}' "$TOP/README.md" "$TOP"/docs/*.md "$TOP/bench/RESULTS.md" > code.txt
[[ -s code.txt ]] || fail "no commands found in the documents (the extraction is broken)"

# The targets this tree's make knows: the Makefile, every build.mk, and the
# fragments a project includes (mk/startup.mk, mk/pgo.mk).
(cd "$TOP" && cat Makefile */build.mk mk/startup.mk mk/pgo.mk) |
	awk '/^[^\t#$][^=]*::?([^=]|$)/ && !/^[ \t]/ {
		sub(/::?.*/, "")
		for (i = 1; i <= NF; i++) print $i
	}' | sort -u > targets.txt
expect_grep '^check$' targets.txt "the targets read from the Makefile"
expect_grep '^startup-check$' targets.txt "the targets read from mk/startup.mk"

: > named.out
while IFS=$'\t' read -r file line text; do
	where="${file#"$TOP"/}:$line"
	read -ra words <<< "$text"
	prev=
	for ((i = 0; i < ${#words[@]}; i++)); do
		w=${words[i]}
		# make [options] [VAR=value] TARGET...: each target must exist
		if [[ $w == make && ( -z $prev || $prev == '&&' || $prev == ';' || $prev == '|' || $prev == '(' || $prev == *=* ) ]]; then
			for ((j = i + 1; j < ${#words[@]}; j++)); do
				t=${words[j]}
				case $t in
				'#'* | '&&' | ';' | '|' | '||' | '\') break ;;
				-C | -f | -I | -o | -W) j=$((j + 1)); continue ;;
				-* | *=*) continue ;;
				esac
				t=${t%%[,;)\`]}
				[[ $t =~ ^[a-z][a-z0-9_-]*$ ]] || continue
				grep -qxF -- "$t" targets.txt || echo "$where: 'make $t': no target $t in Makefile, */build.mk or mk/*.mk" >> named.out
			done
		fi
		# a script or file of the tree: it must be there
		p=${w#./}
		p=${p%%[,;:)\`\"\']}
		p=${p%.}
		if [[ $p =~ ^(bench|tests|scripts|samples|fuzz|\.ci|mk|cmake)/[A-Za-z0-9_./-]*$ ]]; then
			case $p in
			*[A-Z][A-Z]* | *...* | *.log | *.png | fuzz/work* | fuzz/build*) ;;
			*) [[ -e $TOP/$p ]] || echo "$where: '$p' does not exist" >> named.out ;;
			esac
		fi
		# a test by its name
		if [[ $w =~ ^t-[a-z0-9-]+(\.sh)?[,.]?$ ]]; then
			t=${w%[,.]}
			t=${t%.sh}
			[[ -f $TOP/tests/$t.sh ]] || echo "$where: test '$t': no tests/$t.sh" >> named.out
		fi
		prev=$w
	done
done < code.txt
expect_empty named.out "make targets, scripts and tests the documents name"

# Every figure of bench/RESULTS.md, and of the measured sections of the
# README and docs/, is in the saved output it names.
run_status results.out "$TOP/bench/results-check" "$TOP/bench/RESULTS.md"
((RUN_STATUS == 0)) || fail "bench/results-check bench/RESULTS.md: $(status_name "$RUN_STATUS"): $(cat results.out.err)"
run_status sourced.out "$TOP/bench/results-check" --sourced-only "$TOP/README.md" "$TOP"/docs/*.md
((RUN_STATUS == 0)) || fail "bench/results-check --sourced-only README.md docs/*.md: $(status_name "$RUN_STATUS"): $(cat sourced.out.err)"

# results-check itself: a figure its Source holds passes, one it does not
# (or written another way: 309.30 is not 309.3) is named with its line, and
# a Source that cannot be read fails.
src=bench/best/results-default-a.txt
grep -qF '309.3' "$TOP/$src" || fail "$src no longer holds 309.3: pick another figure for this check"
grep -qF '987.654' "$TOP/$src" && fail "$src holds 987.654: pick another missing figure for this check"
section() { # TITLE SOURCE ROW
	printf '## %s\n\nCommand: `bench/best/run`\nSource: `%s`\nMeasured: today\nMachine: this\n\n| a | b |\n|---|---|\n| row | %s |\n' "$1" "$2" "$3"
}
section right "$src" '309.3 pages' > right.md
section wrong "$src" '309.3 and 987.654' > wrong.md
section respelled "$src" '309.30' > respelled.md
section unread "$src at 0000000" '309.3' > unread.md
run_status rc-right.out "$TOP/bench/results-check" right.md
((RUN_STATUS == 0)) || fail "results-check refused a figure its source holds: $(cat rc-right.out.err)"
for case in wrong:987.654 respelled:309.30 unread:cannot; do
	run_status "rc-${case%%:*}.out" "$TOP/bench/results-check" "${case%%:*}.md"
	((RUN_STATUS == 1)) || fail "results-check on ${case%%:*}.md: $(status_name "$RUN_STATUS"), not 1"
	expect_grep "${case#*:}" "rc-${case%%:*}.out.err" "results-check on ${case%%:*}.md"
done
expect_grep 'wrong.md:10: 987.654 is not in' rc-wrong.out.err "the line of the figure not found"
expect_no_grep ': 309.3 is not' rc-wrong.out.err "a figure the source holds"

# Every man page is clean: a warning is a failure.
: > groff.out
while read -r page; do
	page=$TOP/$page
	status=0
	groff -ww -man -Tutf8 "$page" > /dev/null 2> groff.err || status=$?
	if ((status != 0)) || [[ -s groff.err ]]; then
		{ echo "${page#"$TOP"/}: groff exit status $status"; cat groff.err; } >> groff.out
	fi
done < pages.want
expect_empty groff.out "groff -ww -man on every man page"
exit 0
