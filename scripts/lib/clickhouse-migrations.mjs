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

/**
 * The migrations in `dir`, in version order, each with its statements.
 * @returns {{ version: number, name: string, file: string, statements: string[] }[]}
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
    const statements = splitStatements(readFileSync(join(dir, file), "utf8"));
    if (statements.length === 0) throw new MigrationError(`${file} holds no statement`);
    migrations.push({ version, name: file.slice(0, -".sql".length), file, statements });
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
 * @param {{ url: string, username?: string, password?: string, database?: string, dir?: string,
 *   log?: (line: string) => void }} options
 * @returns {Promise<{ applied: string[], skipped: string[] }>} names of the migrations applied now and before
 */
export async function migrate({ url, username, password, database = "default", dir = MIGRATIONS_DIR, log = () => {} }) {
  const migrations = listMigrations(dir);
  const credentials = { ...(username ? { username } : {}), ...(password ? { password } : {}) };
  const admin = createClient({ url, ...credentials });
  try {
    await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(database)}` });
  } catch (error) {
    throw new MigrationError(`could not create database ${database}: ${messageOf(error)}`);
  } finally {
    await admin.close();
  }
  const client = createClient({ url, database, ...credentials });
  try {
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
    return { applied, skipped };
  } finally {
    await client.close();
  }
}

const messageOf = (error) => (error instanceof Error ? error.message : String(error));
