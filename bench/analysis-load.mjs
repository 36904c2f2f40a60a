// Loads SQL files (bench/analysis-generate.mjs's, or any) into a fresh local D1 state directory.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { applyMigrations, wrangler } from "../scripts/lib/local-worker.mjs";

/** A fresh, migrated local D1 at `state`, then every `.sql` file of `sqlDir` in name order. */
export function loadIntoD1(state, sqlDir) {
  rmSync(state, { recursive: true, force: true });
  applyMigrations({ persistTo: state, quiet: true });
  for (const file of readdirSync(sqlDir).sort()) {
    if (!file.endsWith(".sql")) continue;
    wrangler(["d1", "execute", "DB", "--local", "--persist-to", state, "--file", join(sqlDir, file)], { quiet: true });
    process.stdout.write(`loaded ${file}\n`);
  }
}
