// SPDX-License-Identifier: MIT
// memtap's Perfetto protobuf trace decoded by protobufjs (npm) against Perfetto's message
// definitions (perfetto-trace.proto), checked for structure (every event on a described
// track, slices balanced, nothing undecoded) and compared event by event with memtap's
// own Trace Event JSON export of the same trace.
// usage: node perfetto-check.mjs NODE_MODULES TRACE.pb TRACE.json PROTO [REPORT.json]
// With memtap report's JSON of the trace: the protobuf's system-call slices (the workload's,
// not the runtime's) against the report's calls and time, its RSS points against the RSS
// collector's records, its faults counters against the report's workload faults.
import { createRequire } from 'module';
import { readFileSync } from 'fs';
import path from 'path';

const [nm, pbPath, jsonPath, protoPath, reportPath] = process.argv.slice(2);
const require = createRequire(path.join(nm, 'x.js'));
const protobuf = require('protobufjs');
const fail = (m) => { console.error('FAIL: ' + m); process.exit(1); };

const root = protobuf.loadSync(protoPath);
const Trace = root.lookupType('perfetto.protos.Trace');
const buf = readFileSync(pbPath);
const trace = Trace.decode(buf);
const again = Trace.encode(trace).finish();
if (again.length !== buf.length)
	fail(`re-encoded ${again.length} bytes of ${buf.length}: fields outside Perfetto's definitions`);
// 64-bit fields come as Long (protobufjs with long.js): exact as BigInt
const big = (x) => (x == null ? x : typeof x === 'object'
	? (BigInt(x.high >>> 0) << 32n) | BigInt(x.low >>> 0) : BigInt(x));
const num = (x) => (x == null ? x : Number(big(x)));
const signed = (x) => (x == null ? x : typeof x === 'object' ? Number(BigInt.asIntN(64, big(x))) : Number(x));

const tracks = new Map();
const procName = new Map();
for (const p of trace.packet) {
	if (num(p.trustedPacketSequenceId) !== 1) fail('a packet off sequence 1');
	if (!p.trackDescriptor && !p.trackEvent) fail('a packet with no data');
	const d = p.trackDescriptor;
	if (!d) continue;
	tracks.set(String(d.uuid), d);
	if (d.process) procName.set(num(d.process.pid), d.process.processName);
}
const open = new Map();
const got = { C: [], i: [], X: [] };
for (const p of trace.packet) {
	const e = p.trackEvent;
	if (!e) continue;
	const t = tracks.get(String(e.trackUuid));
	if (!t) fail(`an event on an undescribed track ${e.trackUuid}`);
	const ts = num(p.timestamp);
	const args = Object.fromEntries((e.debugAnnotations || []).map((a) => [a.name,
		a.value === 'stringValue' ? a.stringValue : a.value === 'pointerValue' ? '0x' + big(a.pointerValue).toString(16)
		: a.value === 'uintValue' ? num(a.uintValue) : signed(a.intValue)]));
	const owner = (tr) => (tr.thread ? [num(tr.thread.pid), num(tr.thread.tid)]
		: [num(tracks.get(String(tr.parentUuid)).process.pid), tr.name]);
	if (e.type === 4) {
		const [pid] = owner(t);
		got.C.push(`${pid}|${t.name}|${ts}|${signed(e.counterValue)}`);
	} else if (e.type === 3) {
		const [pid, tid] = owner(t);
		got.i.push(`${pid}|${tid}|${e.name}|${e.categories[0]}|${ts}|${JSON.stringify(args)}`);
	} else if (e.type === 1) {
		const k = String(e.trackUuid);
		if (!open.has(k)) open.set(k, []);
		open.get(k).push({ e, ts, args });
	} else if (e.type === 2) {
		const b = (open.get(String(e.trackUuid)) || []).pop();
		if (!b) fail('a slice end with no begin');
		const [pid, tid] = owner(t);
		got.X.push(`${pid}|${tid}|${b.e.name}|${b.e.categories[0]}|${b.ts}|${ts - b.ts}|${JSON.stringify(b.args)}`);
	}
}
for (const v of open.values()) if (v.length) fail('a slice left open');

// The same events in the JSON form.
const j = JSON.parse(readFileSync(jsonPath));
const t0 = j.otherData.t0_monotonic_ns;
const ns = (us) => t0 + Math.round(us * 1000);
const want = { C: [], i: [], X: [] };
const jsonProc = new Map();
for (const e of j.traceEvents) {
	if (e.ph === 'M' && e.name === 'process_name') jsonProc.set(e.pid, e.args.name);
	if (e.ph === 'C')
		for (const [k, v] of Object.entries(e.args)) want.C.push(`${e.pid}|${e.name} ${k}|${ns(e.ts)}|${v}`);
	if (e.ph === 'i') want.i.push(`${e.pid}|${e.tid}|${e.name}|${e.cat}|${ns(e.ts)}|${JSON.stringify(e.args || {})}`);
	if (e.ph === 'X') {
		const tid = e.cat === 'phase' ? 'phases' : e.tid;
		want.X.push(`${e.pid}|${tid}|${e.name}|${e.cat}|${ns(e.ts)}|${Math.round(e.dur * 1000)}|${JSON.stringify(e.args || {})}`);
	}
}
for (const k of ['C', 'i', 'X']) {
	const a = got[k].sort(), b = want[k].sort();
	if (a.length !== b.length) fail(`${k}: ${a.length} events in protobuf, ${b.length} in JSON`);
	for (let n = 0; n < a.length; n++) if (a[n] !== b[n]) fail(`${k}: protobuf ${a[n]} / JSON ${b[n]}`);
}
for (const [pid, name] of jsonProc) if (procName.get(pid) !== name) fail(`process ${pid}: ${procName.get(pid)}, JSON ${name}`);
if (reportPath) {
	const rep = JSON.parse(readFileSync(reportPath));
	const own = got.X.map((x) => x.split('|')).filter((x) => x[3] === 'syscall' && !x[2].endsWith('[memtap-rt]'));
	const calls = rep.syscalls.reduce((a, x) => a + x.calls, 0);
	const total = rep.syscalls.reduce((a, x) => a + x.total_ns, 0);
	const dur = own.reduce((a, x) => a + Number(x[5]), 0);
	if (own.length !== calls || dur !== total)
		fail(`syscall slices: ${own.length} lasting ${dur} ns, memtap report ${calls} calls, ${total} ns`);
	const rss = new Set(got.C.map((x) => x.split('|')).filter((x) => x[1].startsWith('rss ')).map((x) => x[0] + '|' + x[2]));
	if (rss.size !== rep.rss.events) fail(`RSS points ${rss.size}, memtap report ${rep.rss.events} records`);
	// the workload's faults: memtap's own pages (the runtime's image, region and arena) apart
	// in both, by one definition (analysis/own.c and the region map)
	const faults = { minor: 0, major: 0 };
	for (const x of got.C.map((c) => c.split('|')))
		if (x[1] === 'faults minor' || x[1] === 'faults major') faults[x[1].slice(7)] += Number(x[3]);
	if (faults.minor !== rep.faults.minor || faults.major !== rep.faults.major)
		fail(`faults ${faults.minor} minor, ${faults.major} major; memtap report ${rep.faults.minor}, ${rep.faults.major}`);
	console.log(`ok: ${calls} system calls lasting ${total} ns, ${rss.size} RSS records and ${faults.minor} minor faults, as memtap report says`);
}
console.log(`ok: ${trace.packet.length} packets decode against Perfetto's definitions (protobufjs), ` +
	`nothing undecoded; ${got.C.length} counter values, ${got.i.length} instants, ${got.X.length} slices, ` +
	`${procName.size} processes equal to the JSON export's`);
