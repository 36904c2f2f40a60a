import { type ClickHouseClient, ClickHouseError } from "@clickhouse/client-web";
import type { ClickHouseConnection } from "../../lib/config";
import { ApiError, misconfigured } from "../../lib/errors";
import { clickhouseClient } from "./client";

/**
 * A ClickHouse database belongs to one deployment. ClickHouse rows are keyed by project id alone, and
 * a new D1 (a recreated deployment, a second one pointed at the same database, a fresh local state)
 * numbers its projects from 1 again: without this check its projects would read, and merge into,
 * another deployment's events and persons. `npm run clickhouse:migrate` records the identity of the
 * deployment's D1 (its `deployment` table) in the ClickHouse database; the worker reads and writes
 * ClickHouse only when that binding is its own identity.
 *
 * The answer is kept per isolate, so requests pay no round trip for it: a match for ten minutes (a
 * database adopted by another deployment meanwhile is noticed within that), a refusal for thirty
 * seconds (a fixed setting or an `--adopt` takes effect soon, without a redeploy).
 */
const MATCH_KEPT_MS = 10 * 60_000;
const REFUSAL_KEPT_MS = 30_000;

interface Check {
  until: number;
  outcome: Promise<void>;
}

/** The identity of each D1 binding (one per deployment; tests may hold several). */
let identities = new WeakMap<D1Database, Promise<string>>();
/** Checks by connection and identity; an in-flight one is shared by the requests that wait for it. */
const checks = new Map<string, Check>();

/**
 * The client of `connection`, once its database is known to be bound to this deployment (the
 * identity in `d1`); otherwise throws the 500 `misconfigured` naming CLICKHOUSE_DATABASE and saying
 * what to do (logged once per isolate). A server that cannot be asked (unreachable, busy) throws its
 * own error, which is not kept.
 */
export async function ownClickHouse(connection: ClickHouseConnection, d1: D1Database): Promise<ClickHouseClient> {
  const client = clickhouseClient(connection);
  await ownership(client, connection, d1);
  return client;
}

/** The kept answer for this connection and identity, asked anew when none is in force. */
async function ownership(client: ClickHouseClient, connection: ClickHouseConnection, d1: D1Database): Promise<void> {
  const identity = await deploymentIdentity(d1);
  const key = JSON.stringify([connection.url, connection.username, connection.database, identity]);
  const now = Date.now();
  let check = checks.get(key);
  if (!check || check.until <= now) {
    check = { until: Number.POSITIVE_INFINITY, outcome: compare(client, connection.database, identity) };
    checks.set(key, check);
    const settled = check;
    check.outcome.then(
      () => (settled.until = Date.now() + MATCH_KEPT_MS),
      (error: unknown) => {
        if (error instanceof ApiError) settled.until = Date.now() + REFUSAL_KEPT_MS;
        // Not an answer (the server unreachable or busy): ask again on the next request.
        else if (checks.get(key) === settled) checks.delete(key);
      },
    );
  }
  return check.outcome;
}

/** Forgets every kept answer and identity, so the next request asks again (tests that change an identity). */
export function forgetOwnershipChecks(): void {
  identities = new WeakMap();
  checks.clear();
}

function deploymentIdentity(d1: D1Database): Promise<string> {
  let identity = identities.get(d1);
  if (!identity) {
    identity = readIdentity(d1);
    identities.set(d1, identity);
    identity.catch(() => identities.delete(d1));
  }
  return identity;
}

/** The identity never changes (src/db/schema.ts), so it is read once per isolate. */
async function readIdentity(d1: D1Database): Promise<string> {
  let row: { id: string } | null = null;
  try {
    row = await d1.prepare("SELECT id FROM deployment").first<{ id: string }>();
  } catch (error) {
    if (!/no such table/i.test(String(error))) throw error;
  }
  if (!row)
    throw misconfigured(
      "its D1 database has no deployment identity: the D1 migrations are not applied (npx wrangler d1 migrations apply DB --remote).",
    );
  return row.id;
}

async function compare(client: ClickHouseClient, database: string, identity: string): Promise<void> {
  const bound = await boundDeployment(client);
  if (bound === identity) return;
  const migrate = 'npm run clickhouse:migrate (docs/operations.md, "A ClickHouse database belongs to one deployment")';
  if (bound === null)
    throw misconfigured(
      `the ClickHouse database "${database}" (CLICKHOUSE_DATABASE) is not bound to this deployment: run ${migrate}.`,
    );
  throw misconfigured(
    `the ClickHouse database "${database}" (CLICKHOUSE_DATABASE) belongs to another deployment (${bound}), not to this one (${identity}). ` +
      "Nothing is read or written there; captured events wait in the events queue. Point CLICKHOUSE_DATABASE at this deployment's own database " +
      `and run ${migrate}, or, if this D1 was restored from a backup of that deployment, bind the database with npm run clickhouse:migrate -- --adopt.`,
  );
}

async function boundDeployment(client: ClickHouseClient): Promise<string | null> {
  try {
    const result = await client.query({
      query: "SELECT id FROM deployment ORDER BY bound_at DESC LIMIT 1",
      format: "JSONEachRow",
    });
    return (await result.json<{ id: string }>())[0]?.id ?? null;
  } catch (error) {
    // A database migrated before bindings existed, or not at all: bound to nothing yet.
    if (error instanceof ClickHouseError && (error.type === "UNKNOWN_TABLE" || error.type === "UNKNOWN_DATABASE"))
      return null;
    throw error;
  }
}
