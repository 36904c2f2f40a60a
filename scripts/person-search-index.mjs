// Drops or rebuilds the persons search index (the `person_search` FTS5 table and its triggers,
// drizzle/0007_person_search.sql), for `wrangler d1 export`, which refuses a database holding an FTS5
// table (cloudflare/workers-sdk#6305). The index is derived from persons and distinct ids only, so
// dropping it loses nothing; while it is gone the persons list's `search` answers 500.
//
// Usage: node scripts/person-search-index.mjs drop|rebuild [--local|--remote]   (default --local)
//   drop, export, rebuild:
//   node scripts/person-search-index.mjs drop --remote && npx wrangler d1 export DB --remote --output backup.sql \
//     && node scripts/person-search-index.mjs rebuild --remote
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const [action, where = "--local"] = process.argv.slice(2);
if (!["drop", "rebuild"].includes(action) || !["--local", "--remote"].includes(where)) {
  console.error("usage: node scripts/person-search-index.mjs drop|rebuild [--local|--remote]");
  process.exit(2);
}

const migration = readFileSync(join(ROOT, "drizzle/0007_person_search.sql"), "utf8");
const triggers = [...migration.matchAll(/CREATE TRIGGER `([^`]+)`/g)].map((m) => m[1]);
const drop = [
  ...triggers.map((t) => `DROP TRIGGER IF EXISTS \`${t}\`;`),
  "DROP VIEW IF EXISTS `person_search_text`;",
  "DROP TABLE IF EXISTS `person_search`;",
];
// Rebuilding is dropping what is left and running the migration's statements again (table, view, backfill, triggers).
const statements = action === "drop" ? drop : [...drop, ...migration.split("--> statement-breakpoint")];

const dir = mkdtempSync(join(tmpdir(), "edgehog-search-index-"));
try {
  const file = join(dir, `${action}.sql`);
  writeFileSync(file, statements.join("\n"));
  console.log(`${action === "drop" ? "Dropping" : "Rebuilding"} the persons search index (${where.slice(2)} D1)...`);
  execFileSync("npx", ["wrangler", "d1", "execute", "DB", where, "--file", file, "--yes"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  console.log(action === "drop" ? "Dropped: export now, then rebuild." : "Rebuilt: search reads the index again.");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
