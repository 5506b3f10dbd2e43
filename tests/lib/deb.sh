#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian package: deb.sh BUILD_DIR SOURCE_DIR
# Builds memtap_VERSION_amd64.deb with cpack, checks that its dependencies were computed (by
# dpkg-shlibdeps: CMakeLists.txt lists none), installs it with apt-get on this machine, uses
# it from /usr with the build tree and sources hidden, and removes it: nothing is left.
set -eu
B=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
for t in cpack dpkg-deb dpkg-shlibdeps apt-get unshare; do
	command -v $t >/dev/null || { echo "SKIP: no $t here (dpkg-dev, apt)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: installing a package needs root"; exit 77; }
if dpkg-query -W -f '${Status}' memtap 2>/dev/null | grep -q installed || [ -e /usr/bin/memtap ]; then
	echo "SKIP: memtap is installed on this machine already: not touched"
	exit 77
fi
T=$(mktemp -d /tmp/memtap-deb.XXXXXX)
installed=0
cleanup() {
	[ "$installed" = 0 ] || apt-get remove --purge -y -qq memtap >/dev/null 2>&1 || :
	rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "deb: $*" >&2; exit 1; }

(cd "$B" && cpack -G DEB -B "$T" >"$T/cpack.log" 2>&1) || { cat "$T/cpack.log"; fail "cpack failed"; }
deb=$(ls "$T"/memtap_*_amd64.deb)
deps=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libdw1 libelf1 libzstd1 libsqlite3-0 libyaml-0-2; do
	case "$deps" in *"$lib "* | *"$lib,"* | *"$lib") ;; *) fail "Depends lacks $lib: $deps" ;; esac
done
echo "ok: $(basename "$deb"), Depends: $deps"

DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$T/apt.log" 2>&1 ||
	{ cat "$T/apt.log"; fail "apt-get install failed"; }
installed=1
cat >"$T/use.sh" <<'USE'
set -eu
W=$1
fail() { echo "deb: $*" >&2; exit 1; }
[ "$(memtap --version | sed -n 's/^runtime *//p')" = /usr/lib/memtap/libmemtap-rt.so ] ||
	fail "the packaged memtap does not find its runtime in /usr/lib/memtap"
memtap record -q -o "$W/t.mtap" -- /usr/bin/python3 -c '
import memtap
b = bytearray(1 << 20)
assert memtap.label_buffer(b, "weight", "w"), "the module does not label under memtap"
x = [bytearray(100) for i in range(2000)]' || fail "record of python3 -c failed"
memtap report "$W/t.mtap" --format json >"$W/r.json" || fail "report failed"
/usr/bin/python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["alloc"]
sys.exit(0 if a["calls"] >= 2000 else 1)' "$W/r.json" || fail "no allocations recorded"
man memtap-report 2>/dev/null | grep -q "summarise a trace" || fail "man memtap-report failed"
bash -c '. /usr/share/bash-completion/completions/memtap && COMP_LINE="memtap export --to p" &&
	COMP_POINT=${#COMP_LINE} && _memtap && case " ${COMPREPLY[*]} " in *" parquet perfetto "*) ;; *) exit 1 ;; esac' ||
	fail "bash completion of the installed package"
USE
unshare --mount sh -c 'cd "$3" && mount --make-rprivate / && mount -t tmpfs none "$1" &&
	mount -t tmpfs none "$2" && sh "$3/use.sh" "$3"' _ "$B" "$SRC" "$T" ||
	fail "the installed package failed with the build tree hidden"
echo "ok: record, report, man and completion from the package, the build tree hidden"

DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -qq memtap >/dev/null 2>&1 ||
	fail "apt-get remove failed"
installed=0
left=$(ls -d /usr/bin/memtap /usr/lib/memtap /usr/include/memtap /usr/share/memtap \
	/usr/share/man/man1/memtap-record.1* /usr/lib/python3/dist-packages/memtap 2>/dev/null || :)
[ -z "$left" ] || fail "left after removal: $left"
echo "ok: removed cleanly"
