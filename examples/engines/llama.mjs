// SPDX-License-Identifier: MIT
// llama.cpp, unmodified, through the prebuilt CPU libraries of the npm package node-llama-cpp:
// loads a GGUF model (mapped, as llama.cpp does by default), creates a context and generates
// greedily from a prompt.
//
// usage: node llama.mjs MODEL.gguf [TOKENS] [CONTEXT]
// node-llama-cpp is looked up from NODE_LLAMA_DIR (a directory with node_modules/), else from
// this script's directory upward, as node does.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [model, tokens = "24", context = "256"] = process.argv.slice(2);
if (!model) {
	console.error("usage: node llama.mjs MODEL.gguf [TOKENS] [CONTEXT]");
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
