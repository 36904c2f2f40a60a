// Build outputs of scripts/build-assets.mjs (gitignored), typed here so the typecheck does not
// depend on the build having run.
declare module "*hogql-parser.wasm" {
  const module: WebAssembly.Module;
  export default module;
}

declare module "*hogql-parser.gen.js" {
  import type { HogQLParser } from "@posthog/hogql-parser";
  type InstantiateWasm = (
    imports: WebAssembly.Imports,
    receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
  ) => object;
  const createHogQLParser: (options: { instantiateWasm: InstantiateWasm }) => Promise<HogQLParser>;
  export default createHogQLParser;
}
