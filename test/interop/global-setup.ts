import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
// @ts-expect-error -- a plain ESM script shared with `npm run dev`
import { applyMigrations, startWorker } from "../../scripts/lib/local-worker.mjs";

export const INTEROP_ROOT_KEY = "phx_interop_root_key_for_the_interop_tests";

declare module "vitest" {
  export interface ProvidedContext {
    workerUrl: string;
    rootKey: string;
  }
}

/** Starts one real `wrangler dev` (fresh local state) for every interop test file. */
export default async function setup(project: TestProject) {
  const state = mkdtempSync(join(tmpdir(), "edgehog-interop-"));
  applyMigrations({ persistTo: state, quiet: true });
  const worker = await startWorker({ persistTo: state, vars: { ROOT_API_KEY: INTEROP_ROOT_KEY } });
  project.provide("workerUrl", worker.url);
  project.provide("rootKey", INTEROP_ROOT_KEY);
  return async () => {
    await worker.stop();
    rmSync(state, { recursive: true, force: true });
  };
}
