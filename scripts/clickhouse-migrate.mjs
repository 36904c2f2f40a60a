// `npm run clickhouse:migrate`: applies clickhouse/migrations/ to the ClickHouse named by the environment.
//   CLICKHOUSE_URL       the server's HTTP interface, e.g. http://127.0.0.1:8123 (required)
//   CLICKHOUSE_USER      optional user and password
//   CLICKHOUSE_PASSWORD
//   CLICKHOUSE_DATABASE  the database, created if missing (default: default)
// Running it again applies only what is new; with nothing new it changes nothing.
import { migrate, MigrationError } from "./lib/clickhouse-migrations.mjs";

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
try {
  const { applied, skipped } = await migrate({
    url,
    username: process.env.CLICKHOUSE_USER,
    password: process.env.CLICKHOUSE_PASSWORD,
    database,
    log: (line) => console.log(line),
  });
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
