#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap as installed: install-tree.sh BUILD_DIR SOURCE_DIR
# Installs the build into a temporary prefix, then, with the build tree and the sources
# hidden (a private mount namespace with empty directories mounted over both: as good as
# deleted for everything run there), records a program and reports, views, reads the
# manual and completes from the prefix; moves the prefix and does it again.
set -eu
B=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
[ "$(id -u)" = 0 ] && command -v unshare >/dev/null ||
	{ echo "SKIP: hiding the build tree needs root and unshare(1)"; exit 77; }
T=$(mktemp -d /tmp/memtap-tree.XXXXXX)
trap 'rm -rf "$T"' EXIT
cmake --install "$B" --prefix "$T/prefix" >/dev/null
[ -f "$T/prefix/share/man/man1/memtap-record.1" ] ||
	{ echo "SKIP: no manual pages were built (pandoc missing)"; exit 77; }

cat >"$T/use.sh" <<'USE'
# use.sh PREFIX WORK: memtap from PREFIX alone
set -eu
P=$1 W=$2
M=$P/bin/memtap
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3 # the system's, not a per-user shim
fail() { echo "install-tree: $*" >&2; exit 1; }
case "$("$M" --version | sed -n 's/^runtime *//p')" in
"$P"/lib/memtap/libmemtap-rt.so) ;;
*) fail "the installed memtap finds its runtime at '$("$M" --version | sed -n 's/^runtime *//p')', not under $P" ;;
esac
"$M" record -q -f -o "$W/t.mtap" -- "$PY" -c 'b = [bytearray(4096) for i in range(1000)]' ||
	fail "record failed"
"$M" report "$W/t.mtap" --format json >"$W/r.json" || fail "report failed"
"$PY" -c 'import json, sys
a = json.load(open(sys.argv[1]))["alloc"]
sys.exit(0 if a["calls"] >= 1000 and a["top_sites"] else 1)' "$W/r.json" ||
	fail "the installed runtime recorded no allocations"
"$M" view -f -o "$W/v.html" "$W/t.mtap" 2>/dev/null || fail "view failed"
grep -q "<html" "$W/v.html" || fail "view wrote no HTML"
MANPATH=$P/share/man man memtap-record 2>/dev/null | grep -q "run a command and record how it uses memory" ||
	fail "man memtap-record does not show the page"
bash -c '. "$1"/share/bash-completion/completions/memtap && complete -p memtap >/dev/null &&
	PATH=$1/bin:$PATH && COMP_LINE="memtap record --access " && COMP_POINT=${#COMP_LINE} &&
	_memtap && case " ${COMPREPLY[*]} " in *" auto "*" timer "*) ;; *) exit 1 ;; esac' _ "$P" ||
	fail "bash completion of 'memtap record --access <TAB>' does not offer the modes"
if command -v zsh >/dev/null; then
	# zsh's completion system, its builtins stubbed to print what they are given
	out=$(zsh -c 'compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -l -- "$@"; }
		words=(memtap record --access ""); CURRENT=4; PATH=$1/bin:$PATH
		source "$1"/share/zsh/vendor-completions/_memtap' _ "$P" | tr '\n' ' ')
	case " $out" in *" auto "*" timer "*) ;; *) fail "zsh completion offers '$out'" ;; esac
fi
USE

# The build tree and the sources hidden: empty directories mounted over them.
unshare --mount sh -c 'cd "$3" && mount --make-rprivate / && mount -t tmpfs none "$1" &&
	mount -t tmpfs none "$2" && ! [ -e "$1/memtap" ] && sh "$3/use.sh" "$3/prefix" "$3"' \
	_ "$B" "$SRC" "$T" || { echo "install-tree: failed with the build tree hidden" >&2; exit 1; }
echo "ok: record, report, view, man and completion from the prefix, the build tree hidden"

# The prefix moved: the command finds its runtime relative to itself.
mv "$T/prefix" "$T/moved"
unshare --mount sh -c 'cd "$3" && mount --make-rprivate / && mount -t tmpfs none "$1" &&
	mount -t tmpfs none "$2" && sh "$3/use.sh" "$3/moved" "$3"' _ "$B" "$SRC" "$T" ||
	{ echo "install-tree: failed after the prefix moved" >&2; exit 1; }
echo "ok: the same after moving the prefix"
