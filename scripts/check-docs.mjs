// `npm run check:docs`: starts a throwaway `wrangler dev` and checks that /api/docs renders
// offline in Debian's Chromium and lists every operation of /api/schema/.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderedOperations, schemaOperations } from "./lib/docs-in-chromium.mjs";
import { applyMigrations, startWorker } from "./lib/local-worker.mjs";
import "./build-assets.mjs";

const state = mkdtempSync(join(tmpdir(), "edgehog-docs-"));
applyMigrations({ persistTo: state, quiet: true });
const worker = await startWorker({
  persistTo: state,
  vars: { ROOT_API_KEY: "phx_docs_check_root_key_for_this_script" },
});
try {
  const expected = schemaOperations(await (await fetch(`${worker.url}/api/schema/`)).json());
  const rendered = renderedOperations(`${worker.url}/api/docs`);
  const missing = expected.filter((op) => !rendered.includes(op));
  console.log(`/api/docs rendered ${rendered.length} operations; the schema has ${expected.length}.`);
  if (!rendered.length || missing.length) {
    console.error(`Missing from the rendered reference:\n  ${missing.join("\n  ")}`);
    process.exitCode = 1;
  }
} finally {
  await worker.stop();
  rmSync(state, { recursive: true, force: true });
}
