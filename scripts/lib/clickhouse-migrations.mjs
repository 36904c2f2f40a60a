// ClickHouse's schema as versioned migrations (clickhouse/migrations/NNNN_name.sql), applied in order through
// @clickhouse/client-web and recorded in a `schema_migrations` table of the database. Used by
// `npm run clickhouse:migrate` (scripts/clickhouse-migrate.mjs) and by the ClickHouse test suite.
//
// ClickHouse has no transactional DDL: a migration's statements apply one by one, and a migration is recorded
// only after all of them succeeded. Every statement is written to be harmless when repeated (CREATE ... IF NOT
// EXISTS), so re-running a migration that failed half-way, or two migrators racing, does no harm.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@clickhouse/client-web";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../clickhouse/migrations/", import.meta.url));

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** A migration failed, or the migrations on disk and in the database disagree. The message says which and why. */
export class MigrationError extends Error {}

/** The line a migration holds when the persons mirror must hold every D1 person after it. */
const COPIES_PERSONS = /^-- edgehog: copy D1's persons after this migration\b/m;

/**
 * The migrations in `dir`, in version order, each with its statements.
 * @returns {{ version: number, name: string, file: string, statements: string[], copiesPersons: boolean }[]}
 */
export function listMigrations(dir = MIGRATIONS_DIR) {
  const migrations = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith(".sql")) continue;
    const match = FILE_NAME.exec(file);
    if (!match) throw new MigrationError(`${file}: a migration is named NNNN_name.sql (four digits, lowercase name)`);
    const version = Number(match[1]);
    const previous = migrations.at(-1);
    if (previous?.version === version)
      throw new MigrationError(`${previous.file} and ${file} share version ${version}`);
    const sql = readFileSync(join(dir, file), "utf8");
    const statements = splitStatements(sql);
    if (statements.length === 0) throw new MigrationError(`${file} holds no statement`);
    // A migration after which the persons mirror must hold every D1 person (read by `migrate`'s copyPersons).
    const copiesPersons = COPIES_PERSONS.test(sql);
    migrations.push({ version, name: file.slice(0, -".sql".length), file, statements, copiesPersons });
  }
  return migrations;
}

/**
 * The statements of a SQL file: split at `;` outside quotes and comments, comments kept with their statement
 * (ClickHouse's HTTP interface runs one statement per request). Comment-only pieces are dropped.
 * @param {string} sql
 */
export function splitStatements(sql) {
  const statements = [];
  let start = 0;
  let i = 0;
  const push = (end) => {
    const text = sql.slice(start, end).trim();
    if (stripComments(text).trim()) statements.push(text);
    start = end + 1;
  };
  while (i < sql.length) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") i = lineEnd(sql, i);
    else if (c === "/" && sql[i + 1] === "*") i = blockEnd(sql, i);
    else if (c === "'" || c === '"' || c === "`") i = quoteEnd(sql, i, c);
    else {
      if (c === ";") push(i);
      i++;
    }
  }
  push(sql.length);
  return statements;
}

const lineEnd = (sql, i) => (sql.indexOf("\n", i) < 0 ? sql.length : sql.indexOf("\n", i) + 1);
const blockEnd = (sql, i) => (sql.indexOf("*/", i + 2) < 0 ? sql.length : sql.indexOf("*/", i + 2) + 2);
/** Past the closing quote; a backslash escapes the next character, a doubled quote is one quote. */
function quoteEnd(sql, i, quote) {
  for (let j = i + 1; j < sql.length; j++) {
    if (sql[j] === "\\") j++;
    else if (sql[j] === quote) {
      if (sql[j + 1] !== quote) return j + 1;
      j++;
    }
  }
  return sql.length;
}
const stripComments = (text) => text.replace(/--[^\n]*/g, "").replace(/\/\*[\s\S]*?\*\//g, "");

const quoteIdentifier = (name) => `\`${name.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``;

const SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations
(
    version UInt32,
    name String,
    applied_at DateTime64(3, 'UTC') DEFAULT now64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY version`;

/**
 * Creates the database if it is missing, then applies the migrations of `dir` not yet recorded in its
 * `schema_migrations`, in order, recording each once all its statements succeeded. Stops at the first failure
 * (a MigrationError naming the file and statement), leaving that migration unrecorded.
 *
 * With `deployment` (the identity in the deployment's D1, its `deployment` table), the database is bound to
 * that deployment: a database bound to no deployment yet is bound now; one bound to another deployment is
 * refused before anything is applied (a DeploymentMismatch), unless `adopt` rebinds it to this one.
 * `copyPersons` copies the deployment's persons into the mirror: once the migrations are applied, just
 * before a binding is written (so the worker never reads a half-filled mirror), or after a migration
 * that needs every person mirrored (a line `-- edgehog: copy D1's persons after this migration`).
 * @param {{ url: string, username?: string, password?: string, database?: string, dir?: string,
 *   deployment?: string, adopt?: boolean, log?: (line: string) => void,
 *   copyPersons?: (client: import("@clickhouse/client-web").ClickHouseClient) => Promise<unknown> }} options
 * @returns {Promise<{ applied: string[], skipped: string[],
 *   binding: { deployment: string, previous: string | null, changed: boolean } | null }>}
 *   names of the migrations applied now and before, and the binding when `deployment` was given
 */
export async function migrate({
  url,
  username,
  password,
  database = "default",
  dir = MIGRATIONS_DIR,
  deployment,
  adopt = false,
  log = () => {},
  copyPersons,
}) {
  const migrations = listMigrations(dir);
  const admin = clientFor({ url, username, password });
  try {
    await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(database)}` });
  } catch (error) {
    throw new MigrationError(`could not create database ${database}: ${messageOf(error)}`);
  } finally {
    await admin.close();
  }
  const client = clientFor({ url, database, username, password });
  try {
    const previous = deployment ? await boundTo(client) : null;
    if (deployment && previous && previous !== deployment && !adopt)
      throw new DeploymentMismatch(database, previous, deployment);
    await client.command({ query: SCHEMA_MIGRATIONS });
    const recorded = await client.query({
      query: "SELECT version, name FROM schema_migrations FINAL",
      format: "JSONEachRow",
    });
    const done = new Map((await recorded.json()).map((row) => [Number(row.version), row.name]));
    const applied = [];
    const skipped = [];
    for (const migration of migrations) {
      const recordedName = done.get(migration.version);
      if (recordedName !== undefined) {
        if (recordedName !== migration.name)
          throw new MigrationError(
            `version ${migration.version} was applied as ${recordedName}, but the file is now ${migration.file}: a migration is never renamed or reused`,
          );
        skipped.push(migration.name);
        continue;
      }
      const count = migration.statements.length;
      log(`applying ${migration.file} (${count} statement${count === 1 ? "" : "s"})`);
      for (const [index, statement] of migration.statements.entries()) {
        try {
          await client.command({ query: statement });
        } catch (error) {
          throw new MigrationError(
            `${migration.file}, statement ${index + 1} of ${count}, failed: ${messageOf(error)}\n` +
              `The migration is not recorded; fix it and run again (its statements are safe to repeat).`,
          );
        }
      }
      await client.insert({
        table: "schema_migrations",
        values: [{ version: migration.version, name: migration.name }],
        format: "JSONEachRow",
      });
      applied.push(migration.name);
    }
    const changed = deployment !== undefined && previous !== deployment;
    if (changed || migrations.some((m) => m.copiesPersons && applied.includes(m.name))) await copyPersons?.(client);
    if (!deployment) return { applied, skipped, binding: null };
    if (changed) {
      await client.insert({
        table: "deployment",
        values: [{ id: deployment, how: previous ? "adopt" : "migrate" }],
        format: "JSONEachRow",
      });
      log(
        previous ? `adopted: bound to deployment ${deployment} (was ${previous})` : `bound to deployment ${deployment}`,
      );
    }
    return { applied, skipped, binding: { deployment, previous, changed } };
  } finally {
    await client.close();
  }
}

/**
 * Why a database must not serve the deployment `deployment`, or null when it may: bound to another
 * deployment, or bound to none yet while holding events or persons beside a D1 that is `fresh` (just
 * created, so those rows are some earlier deployment's). A database bound to none beside a D1 that is
 * not new is taken as that deployment's own (migrated before bindings existed).
 * @param {{ url: string, username?: string, password?: string, database?: string, deployment: string, fresh: boolean }} options
 * @returns {Promise<string | null>}
 */
export async function belongsElsewhere({ deployment, fresh, ...options }) {
  const client = clientFor(options);
  try {
    const bound = await boundTo(client);
    if (bound === deployment) return null;
    if (bound) return `it belongs to deployment ${bound}, and this D1 is ${deployment}`;
    if (fresh && (await holdsData(client))) return "it holds events or persons, and this D1 was just created";
    return null;
  } finally {
    await client.close();
  }
}

/**
 * The deployment a ClickHouse database is bound to: the identity of the last binding in its `deployment`
 * table, or null when it has none (a new database, or one migrated before bindings existed).
 * @param {{ url: string, username?: string, password?: string, database?: string }} options
 * @returns {Promise<string | null>}
 */
export async function boundDeployment(options) {
  const client = clientFor(options);
  try {
    return await boundTo(client);
  } finally {
    await client.close();
  }
}

/** A client for `database` (the server's default one when not named), with credentials only when given. */
export const clientFor = ({ url, username, password, database }) =>
  createClient({
    url,
    ...(database ? { database } : {}),
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  });

/** Whether a table exists (false without the database): asked first, so no expected failure reaches the server's log. */
async function tableExists(client, table) {
  try {
    const result = await client.query({ query: `EXISTS TABLE ${table}`, format: "JSONEachRow" });
    return Number((await result.json())[0]?.result) === 1;
  } catch (error) {
    if (error?.type === "UNKNOWN_DATABASE") return false;
    throw error;
  }
}

async function boundTo(client) {
  if (!(await tableExists(client, "deployment"))) return null;
  const result = await client.query({
    query: "SELECT id FROM deployment ORDER BY bound_at DESC LIMIT 1",
    format: "JSONEachRow",
  });
  return (await result.json())[0]?.id ?? null;
}

async function holdsData(client) {
  if (!(await tableExists(client, "events")) || !(await tableExists(client, "person"))) return false;
  const result = await client.query({
    query: "SELECT (SELECT count() FROM events) + (SELECT count() FROM person) AS n",
    format: "JSONEachRow",
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  return Number((await result.json())[0].n) > 0;
}

/** The database belongs to another deployment: the migrator changes nothing. */
export class DeploymentMismatch extends MigrationError {
  constructor(database, bound, deployment) {
    super(
      `database ${database} belongs to another deployment (${bound}); this deployment's D1 is ${deployment}.\n` +
        "Nothing was changed. Point CLICKHOUSE_DATABASE at this deployment's own database (a new name is created),\n" +
        "or, if this D1 is a restored backup of that deployment, bind the database to it with --adopt\n" +
        '(docs/operations.md, "A ClickHouse database belongs to one deployment").',
    );
  }
}

const messageOf = (error) => (error instanceof Error ? error.message : String(error));
