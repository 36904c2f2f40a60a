// Prepares build-time assets out of node_modules (runs on `npm run dev`, `pretest`, `predeploy`):
// - the API reference viewer (served as Workers static assets, so /api/docs works offline);
// - PostHog's HogQL parser, split into a JavaScript loader and a `.wasm` file. workerd refuses to
//   compile WebAssembly from bytes at run time and the package embeds its binary in the JS, so the
//   worker imports the `.wasm` file as a module (wrangler and vitest bundle it as CompiledWasm).
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve("swagger-ui-dist/package.json"));
const out = join(root, "public", "_docs");
mkdirSync(out, { recursive: true });
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) copyFileSync(join(swaggerDir, file), join(out, file));

await extractHogqlParser();

async function extractHogqlParser() {
  // The package exports no `./package.json`; its CommonJS entry sits in dist/.
  const pkgDir = dirname(dirname(require.resolve("@posthog/hogql-parser")));
  // The browser build: it never probes for Node modules (workerd with nodejs_compat looks like Node).
  const source = join(pkgDir, "dist", "hogql_parser_wasm_browser.js");
  const genDir = join(root, "src", "hogql", "generated");
  const jsOut = join(genDir, "hogql-parser.gen.js");
  const wasmOut = join(genDir, "hogql-parser.wasm");
  if (existsSync(jsOut) && existsSync(wasmOut) && statSync(jsOut).mtimeMs >= statSync(source).mtimeMs) return;
  mkdirSync(genDir, { recursive: true });
  const text = readFileSync(source, "latin1");
  // The binary is a string literal decoded by `binaryDecode`; capture the bytes the loader would
  // compile by running it once in Node with WebAssembly.instantiate observed.
  const bytes = await captureWasmBytes(source);
  writeFileSync(wasmOut, bytes);
  // Drop the embedded copy from the loader the worker bundles (about 1 MB); the worker always
  // supplies the module through Emscripten's `instantiateWasm` hook.
  const start = text.indexOf("function findWasmBinary(){");
  const end = text.indexOf("function getBinarySync(", start);
  if (start < 0 || end < 0) throw new Error("@posthog/hogql-parser layout changed: findWasmBinary not found");
  const stripped =
    text.slice(0, start) +
    'function findWasmBinary(){throw new Error("the HogQL parser needs the instantiateWasm hook")}' +
    text.slice(end);
  writeFileSync(jsOut, Buffer.from(stripped, "latin1"));
}

async function captureWasmBytes(source) {
  const original = WebAssembly.instantiate;
  let captured;
  WebAssembly.instantiate = (binary, imports) => {
    captured ??= new Uint8Array(
      binary instanceof ArrayBuffer
        ? binary
        : binary.buffer.slice(binary.byteOffset, binary.byteOffset + binary.byteLength),
    );
    return original(binary, imports);
  };
  try {
    const { default: create } = await import(new URL(`file://${source}`).href);
    await create();
  } finally {
    WebAssembly.instantiate = original;
  }
  if (!captured || WebAssembly.validate(captured) !== true)
    throw new Error("could not extract the HogQL parser's WebAssembly");
  return captured;
}
