import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { retryDelaySeconds } from "../../../src/analytics/clickhouse/consumer";
import type { Env } from "../../../src/env";
import { createProject } from "../../helpers";
import { capture, consume, eventRow, rows, until } from "./queue-helpers";

const uuidsOf = (team: number) =>
  rows<{ uuid: string }>("SELECT uuid FROM events WHERE team_id = {team:Int64}", { team }).then((r) =>
    r.map((x) => x.uuid).sort(),
  );

// A team id of its own per test: these rows never pass through D1, so no project is needed.
const team = () => 3_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

describe("events queue consumer", () => {
  it("keeps a batch while ClickHouse is unreachable, retrying later and later, and stores it once it is back", async () => {
    const t = team();
    const rowsOut = [eventRow(t), eventRow(t)];
    const message = { id: "outage-1", body: { events: rowsOut } };
    const down = { ...env, CLICKHOUSE_URL: "http://127.0.0.1:9" } as unknown as Env;

    for (const attempts of [1, 2, 3]) {
      const result = await consume([{ ...message, attempts }], down);
      expect(result.ackAll).toBe(false);
      expect(result.retryBatch).toEqual({ retry: true });
    }
    expect(await uuidsOf(t)).toEqual([]);
    // (The test pool's batches do not record the delay asked for: the schedule on its own.)
    expect([1, 2, 3, 4, 6, 7, 100].map(retryDelaySeconds)).toEqual([5, 10, 20, 40, 160, 300, 300]);

    const back = await consume([{ ...message, attempts: 31 }]);
    expect(back.ackAll).toBe(true);
    expect(await uuidsOf(t)).toEqual(rowsOut.map((r) => r.uuid).sort());
  });

  it("stores a redelivered batch once (the insert deduplication token)", async () => {
    const t = team();
    const batch = [
      { id: "redelivered-1", body: { events: [eventRow(t), eventRow(t)] } },
      { id: "redelivered-2", body: { events: [eventRow(t)] } },
    ];
    expect((await consume(batch)).ackAll).toBe(true);
    // Delivered again (e.g. the acknowledgement was lost): same messages, same rows, no second copy.
    expect((await consume(batch)).ackAll).toBe(true);
    expect(await uuidsOf(t)).toHaveLength(3);
  });

  it("keeps one row per uuid however often an event is captured", async () => {
    const project = await createProject();
    const e = { event: "twice", distinct_id: "d", uuid: crypto.randomUUID(), properties: {} };
    // Twice in one request, then the whole request again (an SDK retry): separate messages and inserts.
    await capture("/batch/", { api_key: project.api_token, batch: [e, e] });
    await capture("/batch/", { api_key: project.api_token, batch: [e] });
    await until(
      "SELECT count() AS n FROM events WHERE team_id = {team:Int64}",
      { team: project.id },
      (r: { n: string | number }[]) => Number(r[0].n) >= 1,
    );
    // Stored copies of one uuid share the sorting key: the table engine keeps one, at the latest on
    // merge; FINAL reads that outcome now.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(
      await rows<{ uuid: string }>("SELECT uuid FROM events FINAL WHERE team_id = {team:Int64}", { team: project.id }),
    ).toEqual([{ uuid: e.uuid }]);
  });

  it("retries bad rows message by message, storing the good messages of the batch", async () => {
    const t = team();
    const good = [eventRow(t), eventRow(t)];
    const result = await consume([
      { id: "good-1", body: { events: [good[0]] } },
      { id: "poison-1", body: { events: [eventRow(t, { uuid: "not-a-uuid" })] } },
      { id: "good-2", body: { events: [good[1]] } },
    ]);
    expect(result.ackAll).toBe(false);
    expect(result.retryBatch.retry).toBe(false);
    expect(result.explicitAcks.sort()).toEqual(["good-1", "good-2"]);
    // At once: bad data does not get better with time, and Queues moves it to the dead-letter queue after max_retries.
    expect(result.retryMessages).toEqual([{ msgId: "poison-1" }]);
    expect(await uuidsOf(t)).toEqual(good.map((r) => r.uuid).sort());
  });

  it("delivers good messages through the real queue past a poison one", async () => {
    const t = team();
    const good = eventRow(t);
    const queue = (env as unknown as Env).EVENTS_QUEUE!;
    await queue.sendBatch([
      { body: { events: [eventRow(t, { timestamp: "not a time" })] }, contentType: "json" },
      { body: { events: [good] }, contentType: "json" },
    ]);
    await until("SELECT uuid FROM events WHERE team_id = {team:Int64}", { team: t }, (r) => r.length === 1);
    expect(await uuidsOf(t)).toEqual([good.uuid]);
  });
});
