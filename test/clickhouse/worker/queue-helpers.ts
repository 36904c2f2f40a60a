import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { consumeRows } from "../../../src/analytics/clickhouse/consumer";
import type { ClickHouseRows, EventRow } from "../../../src/analytics/clickhouse/rows";
import type { Env } from "../../../src/env";
import { BASE } from "../../helpers";
import { clickhouse } from "./client";

/** Posts an SDK capture body to the worker (its real fetch handler) and expects it accepted. */
export async function capture(path: string, body: unknown) {
  const res = await exports.default.fetch(
    new Request(`${BASE}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  expect(res.status, await res.clone().text()).toBe(200);
}

/** Rows of a query on the worker tests' ClickHouse database. */
export async function rows<T>(query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await clickhouse().query({ query, query_params: params, format: "JSONEachRow" });
  return result.json<T>();
}

/**
 * Polls a query until `done` holds for its rows (the queue delivers in the background, in the same
 * worker): resolves with those rows, or fails with the last ones after `timeoutMs`.
 */
export async function until<T>(
  query: string,
  params: Record<string, unknown>,
  done: (rows: T[]) => boolean,
  timeoutMs = 20_000,
): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await rows<T>(query, params);
    if (done(found)) return found;
    if (Date.now() > deadline) throw new Error(`still waiting for ${query}: ${JSON.stringify(found)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The uuid of the person a distinct id belongs to in D1 (undefined without one). */
export const personUuid = async (projectId: number, distinctId: string) =>
  (
    await env.DB.prepare(
      "SELECT p.uuid FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.project_id = ? AND d.distinct_id = ?",
    )
      .bind(projectId, distinctId)
      .first<{ uuid: string }>()
  )?.uuid;

/** How many events of a project ClickHouse stores (with untilStored: tests that ask right after capturing). */
export async function storedEventCount(projectId: number): Promise<number> {
  const [row] = await rows<{ n: string }>("SELECT count() AS n FROM events WHERE team_id = {team:Int64}", {
    team: projectId,
  });
  return Number(row.n);
}

/** Waits until ClickHouse stores `count` more events of the project than `before` (storedEventCount's). */
export async function untilStored(projectId: number, before: number, count: number) {
  await until<{ n: string }>(
    "SELECT count() AS n FROM events WHERE team_id = {team:Int64}",
    { team: projectId },
    ([row]) => Number(row.n) >= before + count,
  );
}

/** An event row as capture queues it for ClickHouse, of project `team`. */
export const eventRow = (team: number, fields: Partial<EventRow> = {}): EventRow => ({
  uuid: crypto.randomUUID(),
  team_id: team,
  event: "e",
  distinct_id: "d",
  properties: "{}",
  timestamp: "2026-03-01T00:00:00.000Z",
  created_at: "2026-03-01T00:00:01.000Z",
  person_id: null,
  ...fields,
});

/** Runs the worker's consumer on a batch of these messages, as Queues would deliver it. */
export async function consume(
  messages: { id: string; attempts?: number; body: ClickHouseRows }[],
  workerEnv: Env = env as unknown as Env,
) {
  const batch = createMessageBatch<ClickHouseRows>(
    "edgehog-events",
    messages.map((m) => ({ id: m.id, attempts: m.attempts ?? 1, timestamp: Date.now(), body: m.body })),
  );
  const ctx = createExecutionContext();
  await consumeRows(batch, workerEnv);
  return getQueueResult(batch, ctx);
}
