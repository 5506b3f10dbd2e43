#!/bin/sh
# SPDX-License-Identifier: MIT
# libmemtap as a user gets it: install.sh BUILD_DIR SOURCE_DIR
# Installs the build into a temporary prefix, builds examples/trace-summary.c with
# `pkg-config --cflags --libs memtap` (and once more against the static library), runs it on
# stored traces and checks every figure it prints against the installed `memtap report
# --format json`; checks the shared library's soname and that it exports memtap_* only.
set -eu
B=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
T=$(mktemp -d /tmp/memtap-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
cmake --install "$B" --prefix "$T/prefix" >/dev/null
P=$T/prefix
export PKG_CONFIG_PATH=$P/lib/pkgconfig
flags=$(pkg-config --cflags --libs memtap)
cc -std=c17 -Wall -Werror "$SRC/examples/trace-summary.c" $flags -Wl,-rpath,"$P/lib" \
	-o "$T/trace-summary"
# the static library alone, with what it needs from pkg-config's private fields
cc -std=c17 -Wall -Werror "$SRC/examples/trace-summary.c" $(pkg-config --cflags memtap) \
	"$P/lib/libmemtap.a" $(pkg-config --static --libs memtap | sed 's/-lmemtap//; s/-L[^ ]*//') \
	-o "$T/trace-summary-static"

soname=$(objdump -p "$P/lib/libmemtap.so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libmemtap.so.0 ] || { echo "install: soname is '$soname'" >&2; exit 1; }
others=$(nm -D --defined-only "$P/lib/libmemtap.so" | awk '$2 ~ /^[TDBRW]$/ && $3 !~ /^memtap_/ { print $3 }')
[ -z "$others" ] || { echo "install: libmemtap.so exports more than memtap_*: $others" >&2; exit 1; }
[ -x "$P/bin/memtap" ] && [ -f "$P/lib/memtap/libmemtap-rt.so" ] && [ -f "$P/include/memtap/libmemtap.h" ] ||
	{ echo "install: the prefix lacks the command, the runtime or the header" >&2; exit 1; }
# the Python module, where python3 looks under the prefix: a no-op outside memtap, and
# recording under the installed memtap's runtime
pydir=$(find "$P" -path '*dist-packages/memtap/__init__.py' | head -1)
[ -n "$pydir" ] || { echo "install: no Python module" >&2; exit 1; }
pydir=$(dirname "$(dirname "$pydir")")
PYTHONPATH=$pydir python3 -c 'import memtap, sys; sys.exit(memtap.active() or memtap.label(1, 1, "weight"))' ||
	{ echo "install: the Python module claims to record without memtap" >&2; exit 1; }
PYTHONPATH=$pydir "$P/bin/memtap" record -q -o "$T/py.mtap" -- python3 -c \
	'import memtap, sys; b = bytearray(1 << 20); sys.exit(0 if memtap.label_buffer(b, "weight", "w") else 1)' ||
	{ echo "install: the Python module does not record under the installed memtap" >&2; exit 1; }

n=0
for trace in "$SRC"/tests/golden/traces/toy-llm.mtap "$SRC"/tests/golden/traces/cpython.mtap \
	"$SRC"/tests/golden/traces/damaged.mtap; do
	"$T/trace-summary" "$trace" >"$T/out" 2>/dev/null
	"$T/trace-summary-static" "$trace" >"$T/out-static" 2>/dev/null
	cmp -s "$T/out" "$T/out-static" || { echo "install: static and shared clients differ on $trace" >&2; exit 1; }
	"$P/bin/memtap" report "$trace" --format json >"$T/report.json" 2>/dev/null
	n=$((n + $(python3 - "$T/out" "$T/report.json" <<'PY'
import json, sys
out = [l.split() for l in open(sys.argv[1]) if l[0].isalpha() and '.' in l.split()[0]]
rep = json.load(open(sys.argv[2]))
checked = 0
for key, value in out:
    if key.startswith('events.'):
        continue
    section, name = key.split('.', 1)
    name = {'tree_peak_bytes': 'tree_peak_bytes'}.get(name, name)
    want = rep[section][name]
    if int(value) != want:
        sys.exit(f'install: {key} is {value} in libmemtap, {want} in memtap report')
    checked += 1
if checked < 3:
    sys.exit('install: too few figures compared')
print(checked)
PY
)))
done
echo "install: pkg-config build, static build, soname $soname, exports memtap_* only, the Python module; $n figures equal to memtap report's"
