import { type ClickHouseClient, ClickHouseError } from "@clickhouse/client-web";
import type { Env } from "../../env";
import { clickhouseConnection } from "../../lib/config";
import { sha256Hex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { ownClickHouse } from "./deployment";
import type { ClickHouseRows } from "./rows";

/** Persons first: an event is never in ClickHouse before the person mirror rows the same ingest queued. */
const TABLES = ["person", "person_distinct_id2", "person_distinct_id_overrides", "events"] as const;

/**
 * ClickHouse's error types for rows it cannot take as they are: the same rows fail again however
 * often they are sent, unlike an unreachable, busy or misconfigured server, which a later retry outlives.
 */
const DATA_ERRORS = new Set([
  "CANNOT_PARSE_TEXT",
  "CANNOT_PARSE_NUMBER",
  "CANNOT_PARSE_DATE",
  "CANNOT_PARSE_DATETIME",
  "CANNOT_PARSE_UUID",
  "CANNOT_PARSE_BOOL",
  "CANNOT_PARSE_QUOTED_STRING",
  "CANNOT_PARSE_ESCAPE_SEQUENCE",
  "CANNOT_PARSE_INPUT_ASSERTION_FAILED",
  "CANNOT_READ_ALL_DATA",
  "CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN",
  "CANNOT_CONVERT_TYPE",
  "INCORRECT_DATA",
  "TYPE_MISMATCH",
  "TOO_LARGE_STRING_SIZE",
  "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE",
  "ATTEMPT_TO_READ_AFTER_EOF",
]);

const isDataError = (err: unknown) => err instanceof ClickHouseError && DATA_ERRORS.has(err.type ?? "");

/**
 * Seconds before a batch that failed on its `attempts`-th delivery comes back: doubling from 5 s up to
 * 5 minutes, so with the deployment's max_retries a ClickHouse outage of hours is outlived before
 * batches go to the dead-letter queue (docs/operations.md).
 */
export const retryDelaySeconds = (attempts: number) => Math.min(300, 5 * 2 ** Math.max(0, attempts - 1));

/**
 * The events queue's consumer: inserts a batch's rows into ClickHouse, one insert per table over all
 * its messages, and acknowledges the batch only once every insert succeeded. An insert carries a
 * deduplication token derived from the messages and table, so a redelivered batch that already got
 * in is not stored twice (and any copy that does, e.g. regrouped with other messages, shares its
 * sorting key with the first and collapses in the table engine). A failing batch comes back later;
 * when ClickHouse refuses rows as bad data, the messages are retried one by one, so only the bad
 * message keeps failing and ends in the dead-letter queue, never blocking the others. Nothing is
 * inserted into a database that belongs to another deployment (deployment.ts): the batch waits.
 */
export async function consumeRows(batch: MessageBatch<ClickHouseRows>, env: Env): Promise<void> {
  const connection = clickhouseConnection(env);
  const attempts = Math.max(...batch.messages.map((m) => m.attempts));
  if (!connection) {
    console.error(`${batch.queue}: CLICKHOUSE_URL is not set; ${batch.messages.length} message(s) wait for it`);
    batch.retryAll({ delaySeconds: retryDelaySeconds(attempts) });
    return;
  }
  let client: ClickHouseClient;
  try {
    client = await ownClickHouse(connection, env.DB);
  } catch (err) {
    // Another deployment's database (logged once by the check), or no answer from the server: nothing
    // is written, and the batch waits in the queue until the setting is fixed or the server is back.
    if (!(err instanceof ApiError))
      console.error(`${batch.queue}: ClickHouse did not answer (${message(err)}); retrying`);
    batch.retryAll({ delaySeconds: retryDelaySeconds(attempts) });
    return;
  }
  try {
    const counts = await insertMessages(client, batch.messages);
    batch.ackAll();
    console.log(`${batch.queue}: stored ${describe(counts)} from ${batch.messages.length} message(s)`);
  } catch (err) {
    if (isDataError(err) && batch.messages.length > 1) {
      console.warn(
        `${batch.queue}: ClickHouse refused rows of the batch (${message(err)}); inserting message by message`,
      );
      for (const m of batch.messages) await consumeOne(client, batch.queue, m);
      return;
    }
    console.error(
      `${batch.queue}: inserting ${batch.messages.length} message(s) failed on attempt ${attempts} (${message(err)}); retrying`,
    );
    batch.retryAll({ delaySeconds: isDataError(err) ? 0 : retryDelaySeconds(attempts) });
  }
}

/** One message on its own: stored and acknowledged, or retried (at once when its data is bad: it is on its way to the dead-letter queue). */
async function consumeOne(client: ClickHouseClient, queue: string, m: Message<ClickHouseRows>) {
  try {
    await insertMessages(client, [m]);
    m.ack();
  } catch (err) {
    const bad = isDataError(err);
    console.error(
      `${queue}: message ${m.id} failed on attempt ${m.attempts} (${message(err)})${bad ? ": bad data" : ""}`,
    );
    m.retry({ delaySeconds: bad ? 0 : retryDelaySeconds(m.attempts) });
  }
}

/** Inserts every table's rows of the messages; resolves with the row count per table. */
async function insertMessages(client: ClickHouseClient, messages: readonly Message<ClickHouseRows>[]) {
  const ids = messages.map((m) => m.id).sort();
  const counts: Partial<Record<(typeof TABLES)[number], number>> = {};
  for (const table of TABLES) {
    const values = messages.flatMap((m): unknown[] => m.body[table] ?? []);
    if (!values.length) continue;
    await client.insert({
      table,
      values,
      format: "JSONEachRow",
      clickhouse_settings: {
        // The same messages' rows for the same table: a repeat of an insert that already succeeded is a no-op.
        insert_deduplication_token: await dedupToken(table, ids),
        // Times travel as ISO 8601 text with a zone (rows.ts).
        date_time_input_format: "best_effort",
      },
    });
    counts[table] = values.length;
  }
  return counts;
}

const dedupToken = (table: string, ids: string[]) => sha256Hex(`${table}\n${ids.join("\n")}`);

const describe = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([table, n]) => `${n} ${table}`)
    .join(", ") || "nothing";

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);
