// SPDX-License-Identifier: MIT
// llama.cpp, unmodified, through the prebuilt CPU libraries of the npm package node-llama-cpp:
// loads a GGUF model (mapped, as llama.cpp does by default), creates a context and generates
// greedily from a prompt. With --serve, a serving run instead: SEQUENCES sequences of one
// context (llama.cpp's unified KV cache, one sequence id each) answering a stream of prompts
// in parallel for SECONDS, each sequence's history cleared between its requests; it prints
// "request SEQ TOKENS T0 T1" per answer and "served REQUESTS TOKENS SECONDS".
//
// usage: node llama.mjs MODEL.gguf [TOKENS] [CONTEXT]
//        node llama.mjs MODEL.gguf --serve SECONDS [SEQUENCES] [CONTEXT]
// node-llama-cpp is looked up from NODE_LLAMA_DIR (a directory with node_modules/), else from
// this script's directory upward, as node does.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const serve = args[1] === "--serve";
const [model, tokens = "24", context = "256"] = serve ? [args[0], "0", args[4] || "1024"] : args;
if (!model || (serve && !(Number(args[2]) > 0))) {
	console.error("usage: node llama.mjs MODEL.gguf [TOKENS] [CONTEXT]\n" +
		"       node llama.mjs MODEL.gguf --serve SECONDS [SEQUENCES] [CONTEXT]");
	process.exit(2);
}
const base = process.env.NODE_LLAMA_DIR
	? path.join(process.env.NODE_LLAMA_DIR, "node_modules")
	: path.dirname(new URL(import.meta.url).pathname);
let entry;
try {
	entry = createRequire(path.join(base, "x.js")).resolve("node-llama-cpp");
} catch {
	console.error("llama.mjs: node-llama-cpp is not installed (npm install node-llama-cpp@3.22.1, " +
		"then set NODE_LLAMA_DIR to the directory that holds its node_modules)");
	process.exit(2);
}
const { getLlama, LlamaCompletion, LlamaLogLevel } = await import(pathToFileURL(entry).href);

const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const m = await llama.loadModel({ modelPath: path.resolve(model) });
if (serve) {
	await serveFor(Number(args[2]), Number(args[3] || "4"));
	process.exit(0);
}
const ctx = await m.createContext({ contextSize: Number(context), threads: 2 });
const completion = new LlamaCompletion({ contextSequence: ctx.getSequence() });
const t0 = process.hrtime.bigint(); // CLOCK_MONOTONIC, as memtap's times
const text = await completion.generateCompletion("the memory of a model is", {
	maxTokens: Number(tokens),
	temperature: 0,
});
const t1 = process.hrtime.bigint();
console.log(`generated ${m.tokenize(text).length} tokens (context ${ctx.contextSize})`);
console.log(`generation ${t0} ${t1}`);
await ctx.dispose();
await m.dispose();
await llama.dispose();

// A stream of prompts, SEQUENCES at a time, until SECONDS have passed (the running answers
// finish); greedy answers of 8 to 32 tokens to prompts drawn from a fixed seed.
async function serveFor(seconds, sequences) {
	const ctx = await m.createContext({ contextSize: Number(context), sequences, threads: 2 });
	const words = ["memory", "model", "token", "cache", "layer", "weight", "block", "page",
		"read", "write", "retention", "latency"];
	let seed = 7, requests = 0, total = 0;
	const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
	const t0 = process.hrtime.bigint(), end = Date.now() + seconds * 1000;
	const worker = async (i) => {
		const seq = ctx.getSequence();
		const completion = new LlamaCompletion({ contextSequence: seq });
		while (Date.now() < end) {
			const prompt = Array.from({ length: 4 + rand(12) }, () => words[rand(words.length)]).join(" ");
			const a = process.hrtime.bigint();
			const text = await completion.generateCompletion(prompt, {
				maxTokens: 8 + rand(25), temperature: 0,
			});
			const n = m.tokenize(text).length;
			console.log(`request ${i} ${n} ${a} ${process.hrtime.bigint()}`);
			requests++;
			total += n;
			await seq.clearHistory();
		}
		seq.dispose();
	};
	await Promise.all(Array.from({ length: sequences }, (_, i) => worker(i)));
	const secs = Number(process.hrtime.bigint() - t0) / 1e9;
	console.log(`served ${requests} ${total} ${secs.toFixed(2)}`);
	await ctx.dispose();
	await m.dispose();
	await llama.dispose();
}
