#!/bin/bash
# linkopt-cc writes its records (DIR/NAME.link, what mk/startup.mk's
# make startup records; mk/startup.sh wrote OUT.record.tmp through a
# symbolic link) by the toolkit's output rule: a symbolic link at the
# record is replaced and what it led to stays as it was; a link planted at
# NAME.link.tmp is neither followed nor removed; a new record gets the
# umask's mode.
. "$(dirname "$0")/lib.sh"
. "$TESTDIR/pagein-lib.sh"
. "$TESTDIR/buildsys-lib.sh"
need_buildsys

printf 'int main(void) { return 0; }\n' > p.c
gcc -O1 -c p.c || fail "cannot compile p.c"
mkdir rec
echo "somebody else's" > victim
chmod 600 victim
ln -s ../victim rec/p.link
ln -s ../victim rec/p.link.tmp
run_ok cc.out "$LINKOPT_CC" --record-only --dir="$PWD/rec" --name=p gcc -o p p.o
[[ -f rec/p.link && ! -L rec/p.link ]] || fail "the link at rec/p.link was not replaced by the record"
tr '\0' '\n' < rec/p.link | grep -qx -- -o || fail "rec/p.link does not hold the link: $(tr '\0' ' ' < rec/p.link)"
[[ $(cat victim) == "somebody else's" && $(stat -c %a victim) == 600 ]] || fail "the record was written through a link"
[[ -L rec/p.link.tmp && $(readlink rec/p.link.tmp) == ../victim ]] || fail "the link at rec/p.link.tmp was replaced or removed"
for mask in 002 077; do
	rm -f rec/p.link
	(umask $mask && "$LINKOPT_CC" --record-only --dir="$PWD/rec" --name=p gcc -o p p.o) > cc.out 2>&1 ||
		fail "umask $mask: $(cat cc.out)"
	[[ $(stat -c %a rec/p.link) == $(printf '%o' $((8#666 & ~8#$mask))) ]] ||
		fail "a new record under umask $mask has mode $(stat -c %a rec/p.link)"
done
exit 0
