// Drops or rebuilds D1's derived persons indexes, which SQLite triggers keep from persons and distinct ids
// alone, so dropping one loses nothing:
//   search      `person_search`, the FTS5 trigram index of the persons list's `search` (drizzle/0007_person_search.sql);
//               `wrangler d1 export` refuses a database holding an FTS5 table (cloudflare/workers-sdk#6305);
//   properties  `person_property_values`, the property index of the list's filters (drizzle/0008, without
//               `person_counts`, which stays).
// A ClickHouse deployment answers searches and filters from ClickHouse's persons mirror, so it can drop both
// (`all`), about 1,170 of the 2,130 bytes a typical person takes in D1 (docs/operations.md).
//
// Usage: node scripts/person-search-index.mjs drop|rebuild [search|properties|all] [--local|--remote] [--persist-to DIR]
//   (defaults: search, --local). Drop, export, rebuild:
//   node scripts/person-search-index.mjs drop --remote && npx wrangler d1 export DB --remote --output backup.sql \
//     && node scripts/person-search-index.mjs rebuild --remote
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const USAGE =
  "usage: node scripts/person-search-index.mjs drop|rebuild [search|properties|all] [--local|--remote] [--persist-to DIR]";

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    local: { type: "boolean", default: false },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
  },
});
const [action, scope = "search"] = positionals;
if (
  !["drop", "rebuild"].includes(action) ||
  !["search", "properties", "all"].includes(scope) ||
  positionals.length > 2
) {
  console.error(USAGE);
  process.exit(2);
}

/**
 * An index: the statements of its migration that create it (table, view, triggers, backfill), and what
 * drops it. `keep` leaves out the statements of the migration that are not this index's.
 */
function derivedIndex(file, table, view, keep = () => true) {
  const statements = readFileSync(join(ROOT, "drizzle", file), "utf8")
    .split("--> statement-breakpoint")
    .filter(keep);
  const triggers = statements.flatMap((s) => [...s.matchAll(/CREATE TRIGGER `([^`]+)`/g)].map((m) => m[1]));
  return {
    create: statements,
    drop: [
      ...triggers.map((t) => `DROP TRIGGER IF EXISTS \`${t}\`;`),
      `DROP VIEW IF EXISTS \`${view}\`;`,
      `DROP TABLE IF EXISTS \`${table}\`;`,
    ],
  };
}

const INDEXES = {
  search: derivedIndex("0007_person_search.sql", "person_search", "person_search_text"),
  properties: derivedIndex(
    "0008_person_property_index.sql",
    "person_property_values",
    "person_property_text",
    (statement) => statement.includes("person_property_") && !statement.includes("person_counts"),
  ),
};
const chosen = scope === "all" ? [INDEXES.search, INDEXES.properties] : [INDEXES[scope]];
// Rebuilding is dropping what is left and running the migration's statements again (table, view, backfill, triggers).
const statements = chosen.flatMap((index) => (action === "drop" ? index.drop : [...index.drop, ...index.create]));

const where = flags.remote ? "--remote" : "--local";
const dir = mkdtempSync(join(tmpdir(), "edgehog-person-indexes-"));
try {
  const file = join(dir, `${action}.sql`);
  writeFileSync(file, statements.join("\n"));
  const what = scope === "all" ? "search and property indexes" : `${scope === "search" ? "search" : "property"} index`;
  console.log(`${action === "drop" ? "Dropping" : "Rebuilding"} the persons ${what} (${where.slice(2)} D1)...`);
  execFileSync(
    "npx",
    [
      "wrangler",
      "d1",
      "execute",
      "DB",
      where,
      "--file",
      file,
      "--yes",
      ...(flags["persist-to"] ? ["--persist-to", flags["persist-to"]] : []),
    ],
    { cwd: ROOT, stdio: "inherit" },
  );
  console.log(action === "drop" ? "Dropped." : "Rebuilt: the persons list reads it again.");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
