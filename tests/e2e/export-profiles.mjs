// SPDX-License-Identifier: MIT
// Reads memtap's pprof and speedscope exports with independent readers (npm's pprof-format,
// the file-format schema shipped in npm's speedscope, checked by ajv) and compares their
// totals with memtap report's. usage: node export-profiles.mjs NODE_MODULES PPROF SPEEDSCOPE
// REPORT_JSON [LEAF_FUNCTION CALLS]
import { createRequire } from 'module';
import { readFileSync } from 'fs';
import { gunzipSync } from 'zlib';
import path from 'path';

const [nm, pprofPath, ssPath, reportPath, leaf, leafCalls] = process.argv.slice(2);
const require = createRequire(path.join(nm, 'x.js'));
const { Profile } = require('pprof-format');
const Ajv = require('ajv');
const alloc = JSON.parse(readFileSync(reportPath)).alloc;
const fail = (m) => { console.error('FAIL: ' + m); process.exit(1); };

// pprof
const p = Profile.decode(gunzipSync(readFileSync(pprofPath)));
const st = p.stringTable.strings;
if (st[0] !== '') fail('pprof: string_table[0] is not ""');
const types = p.sampleType.map((t) => st[t.type] + '/' + st[t.unit]);
if (types.join() !== 'alloc_objects/count,alloc_space/bytes,inuse_objects/count,inuse_space/bytes')
	fail('pprof: sample types ' + types);
const tot = [0, 0, 0, 0];
for (const s of p.sample) s.value.forEach((v, i) => (tot[i] += Number(v)));
const want = [alloc.calls, alloc.bytes, alloc.leaked_blocks, alloc.leaked_bytes];
if (tot.join() !== want.join()) fail(`pprof: totals ${tot}, memtap report ${want}`);
const fn = new Map(p.function.map((f) => [Number(f.id), f]));
const loc = new Map(p.location.map((l) => [Number(l.id), l]));
for (const s of p.sample)
	for (const id of s.locationId) {
		const l = loc.get(Number(id));
		if (!l || !l.line.length) fail('pprof: a sample names a missing location ' + id);
		for (const ln of l.line) if (!fn.has(Number(ln.functionId))) fail('pprof: missing function');
	}
if (leaf) {
	const s = p.sample.find((x) => Number(x.value[0]) === Number(leafCalls));
	if (!s) fail(`pprof: no sample with ${leafCalls} calls`);
	// the innermost two frames (a compiler may turn the leaf's call into a tail call)
	const inner = s.locationId.slice(0, 2).flatMap((id) => loc.get(Number(id)).line);
	const hit = inner.find((l) => st[fn.get(Number(l.functionId)).name] === leaf);
	if (!hit || !st[fn.get(Number(hit.functionId)).filename] || !Number(hit.line))
		fail(`pprof: the ${leafCalls}-call site's innermost frames lack ${leaf} with a file and line`);
	const labels = Object.fromEntries(s.label.map((l) => [st[l.key], l.str ? st[l.str] : Number(l.num)]));
	if (!labels.pid || !labels.comm) fail('pprof: no pid and comm labels');
}
console.log(`ok: pprof decodes (pprof-format): ${p.sample.length} samples, ${p.location.length} locations, ` +
	`${p.function.length} functions; totals ${tot} equal memtap report's`);

// speedscope
const schema = JSON.parse(readFileSync(path.join(nm, 'speedscope/dist/release/file-format-schema.json')));
const validate = new Ajv({ strict: false }).compile(schema);
const ss = JSON.parse(readFileSync(ssPath));
if (!validate(ss)) fail('speedscope: not valid against its schema: ' + JSON.stringify(validate.errors));
const byName = Object.fromEntries(ss.profiles.map((x) => [x.name, x]));
const sum = (x) => x.weights.reduce((a, b) => a + b, 0);
const checks = [['allocated bytes', alloc.bytes], ['allocation calls', alloc.calls],
	['leaked bytes (live at the end)', alloc.leaked_bytes]];
for (const [name, value] of checks) {
	const x = byName[name];
	if (!x || sum(x) !== value || x.endValue !== value) fail(`speedscope: ${name} sums to ${x && sum(x)}, memtap report ${value}`);
	for (const s of x.samples) for (const f of s) if (!(f < ss.shared.frames.length)) fail('speedscope: bad frame index');
}
if (leaf) {
	const x = byName['allocation calls'];
	const i = x.weights.indexOf(Number(leafCalls));
	if (i < 0 || !x.samples[i].slice(-2).some((f) => ss.shared.frames[f].name === leaf))
		fail(`speedscope: the ${leafCalls}-call stack does not end near ${leaf}`);
}
console.log(`ok: speedscope valid against speedscope's schema (ajv): ${ss.profiles.length} profiles, ` +
	`${ss.shared.frames.length} frames; sums equal memtap report's`);
