#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap events: application events as JSON lines, summarised with the sway analyzer's
# semantics (seed 001). A file with known answers (malformed, partial and odd lines among
# them); a larger random file against an independent Python restatement of the semantics,
# bit for bit; bad input.
. "$(dirname "$0")/lib.sh"

cat >k.jsonl <<'J'
{"ts": 1, "probe": "a", "view_id": "base", "prompt_hash": "h1", "top_k": 5, "op": "next", "wall_ms": 10, "hit": true}
{"ts": 2, "probe": "a", "view_id": "ft", "prompt_hash": "h2", "top_k": "3", "op": "next", "wall_ms": 30.5, "hit": false}
{"ts": 3, "probe": "b", "view_id": "base", "op": "logprob", "wall_ms": 100, "hit": 0}
{"ts": 4, "probe": null, "view_id": 7, "wall_ms": 1.25, "hit": "false"}
not json at all
{"ts": 5, "probe": "b", "wall_ms": "x"}
[1, 2]
{"ts": 6, "probe": "c", "wall_ms": 2

{"ts": 7, "probe": "", "view_id": "base", "wall_ms": 40, "hit": true}
{"ts": 8, "probe": "a", "view_id": "base", "top_k": 1.5, "wall_ms": 5, "hit": true, "hit": false}
J
"$MEMTAP" events k.jsonl --slowest 3 --format json >k.json || fail "events failed"
python3 - k.json <<'PY' || fail "known answers differ (above)"
import json, sys
j = json.load(open(sys.argv[1]))
want = {
    "total_events": 6, "total_wall_ms": 186.75, "overall_hit_rate": 0.5,
    "per_probe": [
        {"probe": "b", "n_events": 1, "total_ms": 100.0, "cache_hits": 0, "cache_misses": 1, "hit_rate": 0.0},
        {"probe": "a", "n_events": 3, "total_ms": 45.5, "cache_hits": 1, "cache_misses": 2, "hit_rate": 1 / 3},
        {"probe": "<unassigned>", "n_events": 2, "total_ms": 41.25, "cache_hits": 2, "cache_misses": 0, "hit_rate": 1.0}],
    "per_view": [{"view_id": "base", "n_events": 4, "total_ms": 155.0},
                 {"view_id": "ft", "n_events": 1, "total_ms": 30.5},
                 {"view_id": "7", "n_events": 1, "total_ms": 1.25}],
}
bad = [k for k in want if j[k] != want[k]]
slow = [(e["wall_ms"], e["probe"], e["view_id"], e["top_k"], e["hit"]) for e in j["slowest"]]
if slow != [(100.0, "b", "base", 0, False), (40.0, "", "base", 0, True), (30.5, "a", "ft", 3, False)]:
    bad.append("slowest %s" % slow)
sk = j["skipped"]
if (sk["not_json"], sk["not_object"], sk["wrong_types"], sk["total"], sk["first_lines"], j["lines"]) != (2, 1, 1, 4, [5, 6, 7, 8], 10):
    bad.append("skipped %s lines %d" % (sk, j["lines"]))
for b in bad:
    print("  wrong:", b, "\n   got:", j.get(b, "") if b in j else "")
sys.exit(1 if bad else 0)
PY
"$MEMTAP" events k.jsonl >k.txt || fail "text failed"
grep -q '^6 events, total 0.19s, cache hit rate 50.0%' k.txt || { cat k.txt; fail "text headline"; }
grep -q '4 of 10 lines skipped: 2 not JSON, 1 not an object, 1 fields of the wrong type (lines 5, 6, 7, 8)' k.txt ||
	{ cat k.txt; fail "text: the skipped lines are not said"; }
"$MEMTAP" events k.jsonl --format md | grep -q '^| b | 1 | 100.0 | 0 | 0.0% |$' || fail "Markdown per-probe row"
"$MEMTAP" events - --format csv <k.jsonl | grep -q '^a,3,45.5,1,2,0.3333333333333333$' || fail "CSV row (from stdin)"
ok "known answers: totals, per probe, per view, slowest 3, 4 skipped lines with their numbers (JSON, text, Markdown, CSV)"

python3 - big.jsonl <<'PY'
import json, random, sys
random.seed(7)
probes = ["delta_kl", "adherence", "attribution", None, "", 0, 3, True, "null_stats"]
with open(sys.argv[1], "w") as f:
    for i in range(60000):
        e = {"ts": random.choice([i * 0.001, str(i), i]), "probe": random.choice(probes),
             "view_id": random.choice(["base", "ft", 42, 1.5, None, True]),
             "prompt_hash": "%08x" % random.getrandbits(32),
             "top_k": random.choice([0, 5, "7", 2.9, False]),
             "op": random.choice(["next_token_dist", "logprob_of"]),
             "wall_ms": random.choice([round(random.expovariate(0.05), 3), random.randint(1, 50), "12.5", 1e-7]),
             "hit": random.choice([True, False, 0, 1, "", "no", None])}
        if random.random() < 0.01:
            f.write(random.choice(["{broken", "[1]", '{"wall_ms": null}', '{"top_k": "1.5"}', "\xe9t\xe9"]) + "\n")
        f.write(json.dumps(e) + "\n")
PY
"$MEMTAP" events big.jsonl --format json >big.json || fail "events on the random file failed"
python3 "$SRC/tests/e2e/events_reference.py" big.jsonl big.json || fail "memtap's figures differ from the reference's"
ok "60,000 random events (odd types included): every figure equal to the Python reference"

: >empty.jsonl
"$MEMTAP" events empty.jsonl >/dev/null 2>e.err && fail "an empty file gave exit 0"
[ "$(wc -l <e.err)" = 1 ] || fail "an empty file: not one line on stderr"
head -c 100000 /dev/urandom >bin.jsonl
"$MEMTAP" events bin.jsonl >/dev/null 2>b.err && fail "a binary file gave exit 0"
[ "$(wc -l <b.err)" = 1 ] || fail "a binary file: not one line on stderr"
python3 -c 'import sys; sys.stdout.write("{\"probe\": \"" + "x" * (3 << 20) + "\", \"wall_ms\": 1}\n{\"probe\": \"ok\", \"wall_ms\": 2}\n")' >long.jsonl
"$MEMTAP" events long.jsonl --max-line-mb 1 --format json >l.json || fail "a file with a 3 MiB line failed"
check_json l.json 'j["total_events"] == 1 and j["skipped"]["too_long"] == 1' "a line over --max-line-mb is not skipped and counted"
"$MEMTAP" events long.jsonl --format json >l2.json || fail "a 3 MiB line under the default limit failed"
check_json l2.json 'j["total_events"] == 2' "a 3 MiB line under the default limit is not read"
ok "bad input: empty and binary files exit 1 with one line; long lines bounded and counted"

# Another schema: --group-by two keys, --time, --hit, --where; every group's count, total,
# mean, hit rate and p50/p90/p99 against a Python restatement (linear interpolation over the
# times rounded to the nanosecond); a dict as a group key skips its line; a missing key
# groups as null.
python3 - g.jsonl <<'PY'
import json, random
random.seed(7)
with open(__import__("sys").argv[1], "w") as f:
    for i in range(30000):
        e = {"model": random.choice(["a", "b", 3, 3.0, True]), "lat": random.expovariate(0.5),
             "cached": random.choice([0, 1, "", "y", None]), "kind": random.choice(["x", "y", 1])}
        if random.random() < 0.2:
            e["layer"] = random.choice([1, 2])
        f.write(json.dumps(e) + "\n")
    f.write('{"model": {"x": 1}, "lat": 1, "kind": "x"}\n')
PY
"$MEMTAP" events g.jsonl --group-by model --group-by layer --time lat --hit cached --where kind=x \
	--format json >g.json || fail "events --group-by failed"
python3 - g.jsonl g.json <<'PY' || fail "the grouped figures differ from the Python restatement (above)"
import json, math, sys
groups, skipped = {}, 0
for line in open(sys.argv[1]):
    p = json.loads(line)
    if str(p.get("kind")) != "x":
        continue
    key = (p.get("model"), p.get("layer"))
    if any(isinstance(k, (dict, list)) for k in key):
        skipped += 1
        continue
    g = groups.setdefault(key, [0, 0.0, 0, []])
    g[0] += 1; g[1] += float(p["lat"]); g[2] += bool(p.get("cached")); g[3].append(round(float(p["lat"]) * 1e6))
def q(v, p):
    v = sorted(v); x = p * (len(v) - 1); lo = math.floor(x)
    return (v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (x - lo)) / 1e6
m = json.load(open(sys.argv[2]))
got = {(g["key"]["model"], g["key"]["layer"]): g for g in m["groups"]}
bad = len(got) != len(groups) or m["skipped"]["wrong_types"] != skipped
for k, (n, tot, hits, v) in groups.items():
    g = got.get(k)
    want = [n, tot, hits, q(v, .5), q(v, .9), q(v, .99)]
    have = g and [g["n_events"], g["total"], g["hits"], g["p50"], g["p90"], g["p99"]]
    same = have and have[:3] == want[:3] and all(abs(a - b) <= 1e-9 * max(1, abs(b)) for a, b in zip(have[3:], want[3:]))
    if not same:
        print("group", k, "memtap", have, "python", want)
        bad = True
print("  %d groups, %d events: %s" % (len(groups), sum(g[0] for g in groups.values()), "equal" if not bad else "DIFFER"))
sys.exit(1 if bad else 0)
PY
"$MEMTAP" events g.jsonl --group-by model --time lat >g.txt || fail "the grouped table failed"
grep -q "p99" g.txt || fail "the grouped table has no percentiles: $(head -5 g.txt)"
ok "--group-by model --group-by layer --time --hit --where: counts, totals, hits and p50/p90/p99 equal to Python's"

# Compressed input, from a file or a pipe: gzip (members concatenated too) and zstd give the
# figures of the plain file; a stream cut short summarises the lines before and says so.
gzip -c g.jsonl >g.jsonl.gz && zstd -q -c g.jsonl >g.jsonl.zst || fail "cannot compress"
"$MEMTAP" events g.jsonl --group-by model --format csv >plain.csv || fail "plain failed"
for f in g.jsonl.gz g.jsonl.zst; do
	"$MEMTAP" events "$f" --group-by model --format csv >c.csv || fail "events $f failed"
	cmp -s plain.csv c.csv || fail "$f: figures differ from the plain file's"
done
"$MEMTAP" events - --group-by model --format csv <g.jsonl.gz >c.csv && cmp -s plain.csv c.csv ||
	fail "a gzip pipe differs from the plain file"
cat g.jsonl.gz g.jsonl.gz | "$MEMTAP" events - --format json >two.json || fail "two members failed"
python3 -c 'import json,sys; sys.exit(json.load(open("two.json"))["lines"] != 2 * 30001)' ||
	fail "concatenated gzip members: not every line read"
head -c 100000 g.jsonl.gz | "$MEMTAP" events - >cut.out 2>cut.err || fail "a cut gzip stream failed"
grep -q "damaged or cut short after [0-9]* lines" cut.err || fail "a cut gzip stream is not said: $(cat cut.err)"
ok "gzip and zstd input (files, a pipe, concatenated members) equal to the plain file's; a cut stream said"
