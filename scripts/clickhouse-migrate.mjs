// `npm run clickhouse:migrate`: applies clickhouse/migrations/ to the ClickHouse named by the environment, and
// binds that database to this deployment (docs/operations.md, "A ClickHouse database belongs to one deployment").
//   CLICKHOUSE_URL       the server's HTTP interface, e.g. http://127.0.0.1:8123 (required)
//   CLICKHOUSE_USER      optional user and password
//   CLICKHOUSE_PASSWORD
//   CLICKHOUSE_DATABASE  the database, created if missing (default: default)
// The deployment is the one whose D1 wrangler.toml names (binding DB): its remote database, or with
// `--local` the local one of `npm run dev` (`--persist-to DIR` for another local state). A database bound to
// another deployment is refused, changing nothing, unless `--adopt` rebinds it to this one (after restoring
// this deployment's D1 from a backup). Running it again applies only what is new; with nothing new it changes
// nothing. When it binds a database, it first copies the D1's persons into ClickHouse's persons mirror
// (persons written before the deployment used ClickHouse), and again after a migration that needs every person
// mirrored (0005); `--copy-persons` copies them on request. WRANGLER_BIN names another wrangler entry point
// to run (default: the project's own).
import { parseArgs } from "node:util";
import { clientFor, migrate, MigrationError } from "./lib/clickhouse-migrations.mjs";
import { deploymentIdentity, executeSql } from "./lib/local-worker.mjs";
import { copyPersonsToMirror } from "./lib/person-mirror-copy.mjs";

const { values: flags } = parseArgs({
  options: {
    local: { type: "boolean", default: false },
    "persist-to": { type: "string" },
    adopt: { type: "boolean", default: false },
    "copy-persons": { type: "boolean", default: false },
  },
});

const url = process.env.CLICKHOUSE_URL;
if (!url) {
  console.error(
    "CLICKHOUSE_URL is not set: name the ClickHouse server to migrate, e.g.\n" +
      "  CLICKHOUSE_URL=http://127.0.0.1:8123 npm run clickhouse:migrate\n" +
      "(npm run clickhouse serves a local one there).",
  );
  process.exit(1);
}

const database = process.env.CLICKHOUSE_DATABASE || "default";
// The URL may carry credentials: print where it points, not them.
const parsed = URL.canParse(url) ? new URL(url) : null;
const where = parsed ? `${parsed.protocol}//${parsed.host}${parsed.pathname}` : url;
console.log(`ClickHouse at ${where}, database ${database}`);
/** Whether this run copied the D1's persons already (on binding, or after a migration that asks for it). */
let copied = false;
const deployment = d1Identity();
console.log(`deployment ${deployment} (${flags.local ? "local" : "remote"} D1)`);
try {
  const connection = {
    url,
    username: process.env.CLICKHOUSE_USER,
    password: process.env.CLICKHOUSE_PASSWORD,
    database,
  };
  const { applied, skipped } = await migrate({
    ...connection,
    deployment,
    adopt: flags.adopt,
    log: (line) => console.log(line),
    copyPersons,
  });
  if (flags["copy-persons"] && !copied) {
    const client = clientFor(connection);
    await copyPersons(client).finally(() => client.close());
  }
  const already = skipped.length ? ` (${skipped.length} applied before)` : "";
  console.log(
    applied.length
      ? `applied ${applied.length} migration${applied.length === 1 ? "" : "s"}: ${applied.join(", ")}${already}`
      : `nothing to apply: all ${skipped.length} migrations are applied`,
  );
} catch (error) {
  console.error(error instanceof MigrationError ? `migration failed: ${error.message}` : error);
  process.exit(1);
}

/** Copies the D1's persons into the mirror, saying how far it got (scripts/lib/person-mirror-copy.mjs). */
async function copyPersons(client) {
  copied = true;
  const read = (sql) => executeSql(sql, { persistTo: flags["persist-to"], remote: !flags.local });
  const persons = await copyPersonsToMirror({ client, read, log: (line) => console.log(line) });
  console.log(`persons mirror: ${persons} persons copied from D1`);
}

/** This deployment's identity, read from its D1 through wrangler; exits saying why when it cannot be. */
function d1Identity() {
  const where = flags.local ? "--local" : "--remote";
  let output = "";
  try {
    const id = deploymentIdentity({ persistTo: flags["persist-to"], remote: !flags.local });
    if (id) return id;
  } catch (error) {
    output = `${error.stdout ?? ""}\n${error.stderr ?? ""}`;
  }
  if (!output || /no such table: deployment/.test(output))
    console.error(
      `This deployment's D1 has no identity yet: apply its migrations first (npx wrangler d1 migrations apply DB ${where}), then run this again.`,
    );
  else
    console.error(
      `${output.trim()}\n\nCould not read this deployment's identity from its ${flags.local ? "local" : "remote"} D1 ` +
        `(wrangler d1 execute DB ${where} failed).` +
        (flags.local ? "" : " Log in with npx wrangler login, or use --local for npm run dev's local D1."),
    );
  process.exit(1);
}
