import type { HogQLParser } from "@posthog/hogql-parser";
import createHogQLParser from "./generated/hogql-parser.gen.js";
import parserWasm from "./generated/hogql-parser.wasm";

let parser: Promise<HogQLParser> | undefined;

/**
 * PostHog's HogQL grammar (ANTLR, compiled to WebAssembly). workerd cannot compile wasm from bytes
 * at run time, so the module bundled as CompiledWasm is instantiated through Emscripten's hook.
 * One instance per isolate.
 */
export function hogqlParser(): Promise<HogQLParser> {
  parser ??= createHogQLParser({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(parserWasm, imports).then((instance) => receive(instance, parserWasm));
      return {};
    },
  }).catch((error: unknown) => {
    parser = undefined;
    throw error;
  });
  return parser;
}

/**
 * Whether this isolate has started instantiating the parser. Start-up must stay cheap (about 1 MB of
 * WebAssembly), so only the first HogQL compile does it; a test holds us to that.
 */
export function hogqlParserStarted(): boolean {
  return parser !== undefined;
}
