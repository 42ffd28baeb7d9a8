// Gives the module's imports, exports and import module the short names
// that binaryen chose (`wasm-opt --minify-imports-and-exports-and-modules`
// prints them as JSON) and renames them to match in wasm-bindgen's glue.
// wasm-bindgen names each import after its JS function plus a 16-digit
// hash, which gzip cannot shrink: about 4 KB of the compressed module and
// as much again in the glue (docs/BENCHMARKS.md, issue 13).
//   node scripts/minify-wasm-names.mjs GLUE.js MAP.json MODULE.wasm
// Rewrites GLUE.js in place, before terser; fails, changing nothing, when
// a name is not found exactly where the glue is expected to hold it, so a
// change of wasm-bindgen's output cannot leave a module that fails to load.
import { readFileSync, writeFileSync } from "node:fs";

const [gluePath, mapPath, wasmPath] = process.argv.slice(2);
const fail = (why) => {
  console.error(`minify-wasm-names: ${why}`);
  process.exit(1);
};
if (!wasmPath) fail("usage: minify-wasm-names.mjs GLUE.js MAP.json MODULE.wasm");

const map = JSON.parse(readFileSync(mapPath, "utf8"));
const modules = new Set(
  WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(wasmPath))).map((i) => i.module),
);
if (modules.size !== 1) fail(`expected one import module, found ${[...modules].join(", ")}`);
const [module] = modules;
const oldModules = new Set(map.imports.map(([m]) => m));
if (oldModules.size !== 1) fail(`expected one import module in the map, found ${[...oldModules].join(", ")}`);
const [oldModule] = oldModules;

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
let glue = readFileSync(gluePath, "utf8");

function replaceOnce(pattern, by, what) {
  let found = 0;
  glue = glue.replace(pattern, () => {
    found += 1;
    return by;
  });
  if (found !== 1) fail(`${what}: found ${found} times, expected once`);
}

// The imports object: one `{ "<module>": importN }` entry, keys `name: ...`.
replaceOnce(new RegExp(`"${escape(oldModule)}"(?=: import0\\b)`, "g"), JSON.stringify(module), "the import module");
for (const [, from, to] of map.imports) {
  replaceOnce(new RegExp(`(?<=[\\s{,])${escape(from)}(?=:)`, "g"), key(to), `import ${from}`);
}
// The exports, which the glue reads as `wasm.<name>`.
const exported = new Set();
for (const [from, to] of map.exports) {
  const name = /^[A-Za-z_$][\w$]*$/.test(to) ? `wasm.${to}` : `wasm[${JSON.stringify(to)}]`;
  glue = glue.replace(new RegExp(`\\bwasm\\.${escape(from)}\\b`, "g"), name);
  exported.add(to);
}
for (const [, name] of glue.matchAll(/\bwasm\.([A-Za-z_$][\w$]*)/g)) {
  if (!exported.has(name)) fail(`the glue reads wasm.${name}, which the module does not export`);
}
writeFileSync(gluePath, glue);
console.log(`minify-wasm-names: ${map.imports.length} imports and ${map.exports.length} exports renamed`);
