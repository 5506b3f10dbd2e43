# SPDX-License-Identifier: MIT
# Helpers for the e2e scripts: sourced with MEMTAP, WORKLOADS and TOOL set by CTest.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

skip() { echo "SKIP: $*"; exit 77; }
# A failed test's work directory is kept in $ARTIFACTS/NAME.fail (up to 200 MB) to be looked at.
fail() {
	echo "FAIL: $*"
	if [ -n "${ARTIFACTS:-}" ] && [ "$(du -sm "$T" | cut -f1)" -le 200 ]; then
		k="$ARTIFACTS/$(basename "$0" .sh).fail"
		rm -rf "$k" && mkdir -p "$ARTIFACTS" && cp -r "$T" "$k" && echo "kept: $k"
	fi
	exit 1
}
ok() { echo "ok: $*"; }

# Skips unless `memtap probe` reports every feature id given.
need() {
	"$MEMTAP" probe --format json >"$T/.probe.json" || fail "memtap probe failed"
	for f in "$@"; do
		python3 - "$T/.probe.json" "$f" <<'PY' || skip "this machine lacks '$f'"
import json, sys
feats = {x["id"]: x for x in json.load(open(sys.argv[1]))["features"]}
sys.exit(0 if feats[sys.argv[2]]["available"] else 1)
PY
	done
}

mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }

# Evaluates a Python expression over the JSON file $1 with the object bound to j; fails
# with the message $3 unless it is true.
check_json() {
	python3 - "$1" "$2" <<'PY' || fail "$3"
import json, sys
j = json.load(open(sys.argv[1]))
ok = eval("(" + sys.argv[2] + ")")
if not ok:
    print("expression false:", sys.argv[2], file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

# run_same NAME CMD...: runs CMD bare, then under `memtap record -o r.mtap`; fails unless
# both give the same exit status, stdout and stderr. Sets rrc to the status.
run_same() {
	name=$1
	shift
	"$@" >bare.out 2>bare.err
	brc=$?
	"$MEMTAP" record -q -f -o r.mtap -- "$@" >rec.out 2>rec.err
	rrc=$?
	[ "$brc" = "$rrc" ] || fail "$name: exit status $rrc, bare $brc"
	cmp -s bare.out rec.out || fail "$name: stdout differs"
	cmp -s bare.err rec.err || fail "$name: stderr differs"
}

# access_truth MODE SCALE: records the access ground-truth workload with --access=MODE at
# 10 kHz (the default rate is calibrated to the machine's cost and may be far lower) and
# checks every phase (tests/e2e/access-truth-check.py); leaves t.mtap, t.out, t.csv.
access_truth() {
	"$MEMTAP" record -q -f --access="$1" --access-freq 10000 -o t.mtap -- "$WORKLOADS/access-truth" "$2" >t.out 2>t.err ||
		fail "record --access=$1 failed: $(cat t.err)"
	"$MEMTAP" dump t.mtap --type access --format csv --unresolved >t.csv || fail "dump failed"
	python3 "$SRC/tests/e2e/access-truth-check.py" t.out t.csv || fail "--access=$1: a phase is off (above)"
	ok "--access=$1: every phase resolved and right"
}

# need_npm PKG@VERSION...: the test readers and browser driver from npm, installed once into
# NPM_DIR (beside the build); skips (77, saying why) only when npm cannot install them.
NPM_DIR=${MEMTAP_NPM_DIR:-$(dirname "$MEMTAP")/npm-test}
# Installs run one at a time (a lock in NPM_DIR): two npm installs into one directory at once
# each rewrite package.json, and each prunes what the other added.
npm_missing() {
	missing=""
	for p in "$@"; do
		[ -d "$NPM_DIR/node_modules/${p%@*}" ] || missing="$missing $p"
	done
}
need_npm() {
	npm_missing "$@"
	[ -z "$missing" ] && return 0
	command -v npm >/dev/null || skip "npm is not installed"
	mkdir -p "$NPM_DIR" || skip "cannot make $NPM_DIR"
	# shellcheck disable=SC2086
	(
		flock 9 || exit 1
		npm_missing "$@"
		[ -z "$missing" ] && exit 0
		cd "$NPM_DIR" && { [ -f package.json ] || npm init -y >/dev/null 2>&1; } &&
			timeout 300 npm install --no-audit --no-fund --silent $missing >/dev/null 2>npm.err
	) 9>"$NPM_DIR/.lock" || skip "npm could not install$missing: $(tail -1 "$NPM_DIR/npm.err" 2>/dev/null)"
	npm_missing "$@"
	[ -z "$missing" ] || fail "npm installed, yet$missing is missing from $NPM_DIR"
}

# need_node_llama: llama.cpp's prebuilt CPU libraries through npm's node-llama-cpp (pinned),
# installed once beside the build without the optional GPU builds; sets NODE_LLAMA_DIR.
# Skips (77, saying why) when node or npm is missing or npm cannot install it.
NODE_LLAMA_VERSION=3.22.1
need_node_llama() {
	NODE_LLAMA_DIR=${MEMTAP_NODE_LLAMA_DIR:-$(dirname "$MEMTAP")/npm-llama}
	export NODE_LLAMA_DIR
	[ -d "$NODE_LLAMA_DIR/node_modules/@node-llama-cpp/linux-x64" ] && return 0
	command -v node >/dev/null || skip "node is not installed (apt-get install nodejs npm)"
	command -v npm >/dev/null || skip "npm is not installed (apt-get install npm)"
	mkdir -p "$NODE_LLAMA_DIR" || skip "cannot make $NODE_LLAMA_DIR"
	(
		flock 9 || exit 1
		[ -d "$NODE_LLAMA_DIR/node_modules/@node-llama-cpp/linux-x64" ] && exit 0
		cd "$NODE_LLAMA_DIR" && { [ -f package.json ] || npm init -y >/dev/null 2>&1; } &&
			timeout 600 npm install --no-audit --no-fund --silent --omit=optional \
				"node-llama-cpp@$NODE_LLAMA_VERSION" "@node-llama-cpp/linux-x64@$NODE_LLAMA_VERSION" >/dev/null 2>npm.err
	) 9>"$NODE_LLAMA_DIR/.lock" ||
		skip "npm could not install node-llama-cpp@$NODE_LLAMA_VERSION: $(tail -1 "$NODE_LLAMA_DIR/npm.err" 2>/dev/null)"
}

# The sanitizer pass (scripts/test.sh sets ASAN_OPTIONS): memtap itself runs several times
# slower there, so bounds on the workload's slowdown, and on what a recorder keeping up
# never loses, belong to the release build's pass; the sanitizer pass checks the rest.
sanitized() {
	[ -n "${ASAN_OPTIONS:-}" ]
}

# sqlite_queries ROWS KEYS JOINED: a query workload for sqlite3 on stdin: a table of ROWS rows
# over KEYS distinct keys, an index, a grouped sum and a self-join of the first JOINED rows.
sqlite_queries() {
	cat <<SQL
CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT, v REAL);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $1)
INSERT INTO t SELECT x, printf('key%06d', x % $2), x * 0.5 FROM c;
CREATE INDEX tk ON t(k);
SELECT k, count(*), sum(v) FROM t GROUP BY k ORDER BY 3 DESC LIMIT 3;
SELECT count(*) FROM t a JOIN t b ON a.k = b.k WHERE a.id < $3;
SQL
}
