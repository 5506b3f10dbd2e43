#!/bin/sh
# SPDX-License-Identifier: MIT
# memtap plot: every kind gives valid SVG (parsed here) with the data it claims; PNG through
# gnuplot where it is installed; --script writes the data and a script gnuplot runs; three
# recorded runs on one RSS figure, one line each, in the order of their peaks.
. "$(dirname "$0")/lib.sh"
need perf-ring

TOY=$(dirname "$MEMTAP")/examples/toy-llm
"$MEMTAP" record -q -f --access-freq 2000 -o t.mtap -- "$TOY" 2 >/dev/null 2>rec.err || fail "record failed: $(cat rec.err)"
for k in heatmap rss wss faults retention-cdf; do
	"$MEMTAP" plot t.mtap --kind "$k" -o "$k.svg" 2>e.txt || fail "plot --kind $k failed: $(cat e.txt)"
done
python3 - <<'PY' || fail "an SVG figure is not what it should be"
import xml.etree.ElementTree as E
ns = {"s": "http://www.w3.org/2000/svg"}
for k in ("heatmap", "rss", "wss", "faults", "retention-cdf"):
    root = E.parse(f"{k}.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    paths = root.findall("s:path", ns)
    if k == "heatmap":
        rects = root.findall("s:rect", ns)
        assert len(rects) > 20, len(rects)  # background, frame and the cells
        assert any("samples and faults binned" in t for t in texts)
    elif k == "retention-cdf":
        # one run: one curve per region type, the weights among them
        assert len(paths) >= 3 and "weight" in texts, texts
    else:
        assert len(paths) == 1 and "t.mtap" in texts, (k, len(paths), texts)
        d = paths[0].get("d")
        assert d.startswith("M") and d.count("H") > 5, (k, d[:80])
    print(k, "ok:", len(list(root.iter())), "elements")
PY
ok "SVG for every kind"

# Three runs on one RSS figure: 16, 48 and 96 MiB touched, labelled.
for n in 16 48 96; do
	"$MEMTAP" record -q -f -o "m$n.mtap" -- python3 -c "
import time
b = bytearray($n << 20)
for i in range(0, len(b), 4096): b[i] = 1
time.sleep(0.3)" 2>rec.err || fail "record $n failed: $(cat rec.err)"
done
"$MEMTAP" plot m16.mtap m48.mtap m96.mtap --kind rss --labels small,medium,large --script -o rss3.svg 2>e.txt ||
	fail "the three-run RSS plot failed: $(cat e.txt)"
[ -s rss3.tsv ] && [ -s rss3.gp ] || fail "--script wrote no data or script"
python3 - <<'PY' || fail "the three-run RSS figure is wrong"
import xml.etree.ElementTree as E
root = E.parse("rss3.svg").getroot()
ns = {"s": "http://www.w3.org/2000/svg"}
texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
assert len(root.findall("s:path", ns)) == 3 and {"small", "medium", "large"} <= set(texts), texts
blocks = [b for b in open("rss3.tsv").read().split("\n\n\n") if b.strip()]
peaks = [max(float(l.split()[1]) for l in b.splitlines() if l and not l.startswith("#")) for b in blocks]
print("peaks (MiB):", peaks)
assert len(peaks) == 3 and peaks[0] < peaks[1] < peaks[2], peaks
assert peaks[2] - peaks[0] > 60, peaks  # 96 - 16 MiB apart, give or take the interpreter
PY
ok "three runs on one RSS figure, their peaks in order"

# PNG and the script through gnuplot, where it is installed.
if command -v gnuplot >/dev/null; then
	"$MEMTAP" plot t.mtap --kind heatmap -o h.png 2>e.txt || fail "PNG heatmap failed: $(cat e.txt)"
	"$MEMTAP" plot m16.mtap m48.mtap m96.mtap --kind rss -o r.png 2>e.txt || fail "PNG rss failed: $(cat e.txt)"
	for f in h.png r.png; do
		[ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "$f is not a PNG"
	done
	sed -i 's/rss3.svg/rss3-gnuplot.svg/' rss3.gp
	gnuplot rss3.gp 2>g.err || fail "gnuplot cannot run the written script: $(cat g.err)"
	python3 -c 'import xml.etree.ElementTree as E; E.parse("rss3-gnuplot.svg")' || fail "gnuplot's SVG does not parse"
	ok "PNG through gnuplot; the written script runs"
else
	echo "gnuplot not installed: PNG not checked"
fi

# Bad requests: one line, status 2 for usage, 1 for a trace without the data.
"$MEMTAP" plot t.mtap m16.mtap --kind heatmap -o x.svg 2>e.txt; [ $? = 2 ] || fail "a two-trace heatmap accepted"
"$MEMTAP" plot t.mtap --kind rss -o x.jpg 2>e.txt; [ $? = 2 ] || fail "a .jpg figure accepted"
"$TOOL" gen-text "$SRC/tests/data/behavior.txt" b.mtap || fail "gen-text failed"
"$MEMTAP" plot b.mtap --kind rss -o x.svg 2>e.txt && fail "an RSS figure of a trace without RSS"
grep -q "holds nothing for a rss figure" e.txt || fail "no clear message: $(cat e.txt)"
[ ! -e x.svg ] || fail "a figure was left behind"
"$MEMTAP" plot t.mtap --kind rss -o rss.svg 2>e.txt && fail "an existing figure was overwritten"
ok "bad requests refused with one line"
