import type { Env } from "../../env";
import { misconfigured } from "../../lib/errors";
import { longerThanBytes } from "../../lib/text";
import type { ClickHouseRows } from "./rows";

/** Cloudflare Queues' limits: 128 KB per message, 100 messages and 256 KB per sendBatch; kept under with room for framing. */
const MAX_MESSAGE_BYTES = 120_000;
const MAX_BATCH_MESSAGES = 100;
const MAX_BATCH_BYTES = 240_000;
const encoder = new TextEncoder();

/** A row's properties JSON must leave room in its message for the other columns (uuids, names, times: well under 2 KB). */
export const MAX_QUEUED_PROPERTIES_BYTES = MAX_MESSAGE_BYTES - 2_000;

/** Whether a row whose properties are this JSON text fits in one message; a larger row cannot be queued. */
export const fitsInMessage = (propertiesJson: string) => !longerThanBytes(propertiesJson, MAX_QUEUED_PROPERTIES_BYTES);

const TABLES = ["events", "person", "person_distinct_id2", "person_distinct_id_overrides"] as const;

/**
 * Hands rows for ClickHouse to the events queue (the consumer inserts them, clickhouse/consumer.ts):
 * split into messages within Queues' size limit and sent in as few sendBatch calls as the limits
 * allow. Resolves once the queue has them durably; throws if it does not (the caller's write is
 * then not acknowledged, so the client retries).
 */
export async function enqueueRows(env: Env, rows: ClickHouseRows): Promise<void> {
  const queue = env.EVENTS_QUEUE;
  if (!queue)
    throw misconfigured(
      "CLICKHOUSE_URL is set but the EVENTS_QUEUE binding is missing. Run npm run setup:cloudflare -- --clickhouse (docs/operations.md).",
    );
  let batch: MessageSendRequest<ClickHouseRows>[] = [];
  let batchBytes = 0;
  for (const { body, bytes } of messages(rows)) {
    if (batch.length === MAX_BATCH_MESSAGES || batchBytes + bytes > MAX_BATCH_BYTES) {
      await queue.sendBatch(batch);
      batch = [];
      batchBytes = 0;
    }
    batch.push({ body, contentType: "json" });
    batchBytes += bytes;
  }
  if (batch.length) await queue.sendBatch(batch);
}

/** The rows packed into messages of at most MAX_MESSAGE_BYTES of JSON each (a single larger row travels alone). */
function* messages(rows: ClickHouseRows): Generator<{ body: ClickHouseRows; bytes: number }> {
  let body: ClickHouseRows = {};
  let bytes = 2;
  for (const table of TABLES) {
    for (const row of rows[table] ?? []) {
      const size = encoder.encode(JSON.stringify(row)).length + table.length + 8;
      if (bytes + size > MAX_MESSAGE_BYTES && bytes > 2) {
        yield { body, bytes };
        body = {};
        bytes = 2;
      }
      ((body[table] ??= []) as unknown[]).push(row);
      bytes += size;
    }
  }
  if (bytes > 2) yield { body, bytes };
}
